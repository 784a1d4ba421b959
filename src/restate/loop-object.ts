import * as restate from '@restatedev/restate-sdk';
import { ApprovalError } from '../errors/approval-error.js';
import { LoopkeeperError } from '../errors/loopkeeper-error.js';
import type { PendingApproval } from '../events/telemetry-events.js';
import { effectiveHistory } from '../log/effective-history.js';
import type { SessionEvent } from '../log/events.js';
import { isValidSessionId } from '../log/session-id.js';
import { pendingApprovalsIn } from '../runtime/run-progress.js';
import type { TurnResult } from '../runtime/turn-result.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import type { TokenCounter } from '../tokens/types.js';
import type { Item } from '../transcript/types.js';
import { describeThrownText } from '../vocabulary/index.js';
import { closeKilledRun, killedInvocation } from './close-killed-run.js';
import { type DurableAction, runDurableTurn } from './durable-turn.js';
import { type LoopObjectLimits, resolveLimits } from './limits.js';
import type {
  AbortResult,
  ApproveInput,
  LoopObjectLoopOptions,
  SendMessageInput,
  TelemetryPage,
  TelemetryPageInput,
} from './loop-object-types.js';
import { parseApproveInput, parseSendInput, parseTelemetryPageInput } from './parse-input.js';
import { assertSameRunInput, runInputDigest } from './run-input.js';
import { admitMessage } from './send-admission.js';
import { readHead } from './session-head.js';
import { stateKeys } from './state-keys.js';
import { readStoredEvents } from './state-store.js';
import { readTelemetryPage } from './telemetry-page.js';

/**
 * The Virtual Object name `createLoopObject` registers when no `name` is given; clients address
 * sessions by it.
 *
 * @example
 * ```ts
 * import * as clients from '@restatedev/restate-sdk-clients';
 * import { LOOP_OBJECT_NAME, type LoopObject } from 'loopkeeper/restate';
 *
 * const ingress = clients.connect({ url: 'http://localhost:8080' });
 * const session = ingress.objectClient<LoopObject>({ name: LOOP_OBJECT_NAME }, 'support-42');
 * console.log((await session.send({ content: 'Hello' })).text);
 * ```
 */
export const LOOP_OBJECT_NAME = 'loopkeeper';

export interface LoopObjectOptions<Name extends string = typeof LOOP_OBJECT_NAME> {
  /** The Virtual Object's name (default `loopkeeper`); its key is the session id. */
  readonly name?: Name;
  /** The loop for one session: model, tools, instructions, compactor, limits. */
  readonly loop: (options: { readonly sessionId: string }) => LoopObjectLoopOptions;
  /**
   * Restate's own options for the object (timeouts, retry policy, retention). The shared
   * handlers read state lazily (only the keys they need) unless you set `enableLazyState: false`. `send`, `approve` and `close` load the state eagerly in one message, and
   * the log's index makes them process only what the loop needs (the head, the latest
   * compaction marker, the items it keeps and the events since), not the whole log.
   */
  readonly restate?: restate.ObjectOptions;
  /** Size limits per session (defaults: 4 MiB per entry, 8 MiB per log); see docs/distributed.md. */
  readonly limits?: LoopObjectLimits;
}

/**
 * A Restate Virtual Object that serves loopkeeper sessions, one object key per session. Serve
 * it with `restate.serve({services: [object]})` from as many workers as you like: Restate runs
 * one exclusive handler per key at a time, so each session has exactly one writer.
 *
 * - `send({content, runId?})`: runs the loop on one user message; resolves with the result,
 *   `awaiting_approval` (with `pending`) when a tool needs a person's decision first. A send
 *   while a run waits is refused (409, `approval_pending`).
 * - `approve({decisions: [{callId, approved, reason?}]})`: decides calls the waiting run waits
 *   for and continues it in place; resolves with its next pause or its end. The wait is the
 *   object's log, not an open invocation, so it can last as long as the object's state does.
 * - `pending()`: the calls the session's run waits for (empty when none).
 * - `abort()`: cancels the running `send`; the run ends `aborted` with synthetic tool results.
 *   Resolves with the cancelled invocation's id; when cancellation cannot reach it (a stuck
 *   worker, a paused invocation that fails again on replay), `abortLoopSession` kills it.
 * - `close()`: closes the run a killed invocation left open (`failed`, `interrupted`, open calls
 *   answered); a no-op otherwise. The next `send` or `approve` does the same first.
 * - `result({runId?})`: a finished run's result (the latest when no id is given), or null.
 * - `history()`: the effective history, what the model sees next.
 * - `log({fromSeq?, limit?})`: the session's events as stored, paged by seq (for audit).
 * - `telemetry({fromSeq?, limit?})`: recorded telemetry events, paged by seq.
 *
 * @example
 * ```ts
 * import * as restate from '@restatedev/restate-sdk';
 * import { createLoopObject } from 'loopkeeper/restate';
 * import { ScriptedModel } from 'loopkeeper/testing';
 *
 * // One Virtual Object per session id; each message is a durable turn.
 * const object = createLoopObject({
 *   loop: ({ sessionId }) => ({
 *     model: new ScriptedModel({ script: () => ({ text: `ok ${sessionId}` }) }),
 *   }),
 * });
 * await restate.serve({ services: [object], port: 9080 });
 * ```
 */
export function createLoopObject<Name extends string = typeof LOOP_OBJECT_NAME>({
  name = LOOP_OBJECT_NAME as Name,
  loop,
  restate: objectOptions,
  limits: limitOptions,
}: LoopObjectOptions<Name>) {
  const limits = resolveLimits(limitOptions);
  // Loaded once per worker: the encoding costs ~0.5 s and every invocation rebuilds a loop.
  let tokens: Promise<TokenCounter> | undefined;
  const loadTokens = (encoding: LoopObjectLoopOptions['encoding']) => {
    tokens ??= createTokenCounter({ encoding: encoding ?? 'o200k_base' });
    return tokens;
  };

  /** Runs one action of the loop in an exclusive handler and records its result. */
  const runTurnIn = async (
    context: restate.ObjectContext,
    {
      head,
      loopOptions,
      action,
    }: {
      readonly head: Awaited<ReturnType<typeof readHead>>;
      readonly loopOptions: LoopObjectLoopOptions;
      readonly action: DurableAction;
    },
  ): Promise<TurnResult> => {
    const tokens = loopOptions.tokens ?? (await loadTokens(loopOptions.encoding));
    let current = head;
    if ((await killedInvocation(context)) !== null) {
      const closed = await closeKilledRun({ context, head, limits, tokens });
      current = { head: closed.head, migrated: false };
    }
    context.set(stateKeys.activeInvocation, context.request().id);
    const result = await runDurableTurn({
      context,
      head: current,
      limits,
      loopOptions,
      tokens,
      action,
    }).catch((error: unknown) => {
      // loopkeeper's own errors are deterministic (a bad option, a broken log, a decision for a
      // call nobody waits for): a retry would fail the same way. Anything else (the SDK's own
      // signals) passes as it is.
      if (!LoopkeeperError.isInstance(error)) throw error;
      // The invocation ends here, its run closed or never started: it is not a killed one.
      context.clear(stateKeys.activeInvocation);
      throw new restate.TerminalError(`The loop failed: ${describeThrownText(error)}`, {
        errorCode: ApprovalError.isInstance(error) ? 409 : 500,
      });
    });
    // A paused run's result is kept too, and replaced once a decision finishes the run.
    context.set(stateKeys.run(result.runId), result);
    if (action.type === 'message') {
      context.set(stateKeys.runInput(result.runId), runInputDigest(action.content));
    }
    context.set(stateKeys.lastRunId, result.runId);
    context.clear(stateKeys.activeInvocation);
    return result;
  };

  return restate.object({
    name,
    handlers: {
      send: restate.handlers.object.exclusive(
        EAGER_STATE,
        async (context: restate.ObjectContext, input: SendMessageInput) => {
          const message = terminalOnError(() => parseSendInput(input));
          const sessionId = context.key;
          if (!isValidSessionId(sessionId)) {
            throw new restate.TerminalError(`"${sessionId}" is not a valid loopkeeper session id`, {
              errorCode: 400,
            });
          }
          const runId = message.runId ?? `${sessionId}:run-${context.rand.uuidv4()}`;
          const recorded = await context.get<TurnResult>(stateKeys.run(runId));
          if (recorded !== null) {
            await assertSameRunInput({ context, runId, content: message.content });
            return recorded;
          }
          const head = await admitMessage({ context, content: message.content, limits });
          const loopOptions = terminalOnError(() => loop({ sessionId }));
          return runTurnIn(context, {
            head,
            loopOptions,
            action: { type: 'message', content: message.content, runId },
          });
        },
      ),

      approve: restate.handlers.object.exclusive(
        EAGER_STATE,
        async (context: restate.ObjectContext, input: ApproveInput) => {
          const decisions = terminalOnError(() => parseApproveInput(input));
          const head = await readHead(context);
          const loopOptions = terminalOnError(() => loop({ sessionId: context.key }));
          return runTurnIn(context, { head, loopOptions, action: { type: 'decide', decisions } });
        },
      ),

      pending: restate.handlers.object.shared(
        async (context: restate.ObjectSharedContext): Promise<readonly PendingApproval[]> =>
          pendingApprovalsIn(await readStoredEvents(context)),
      ),

      abort: restate.handlers.object.shared(
        async (context: restate.ObjectSharedContext): Promise<AbortResult> => {
          const invocation = await context.get<restate.InvocationId>(stateKeys.activeInvocation);
          if (invocation === null) return { aborted: false, invocationId: null };
          context.cancel(invocation);
          return { aborted: true, invocationId: invocation };
        },
      ),

      close: restate.handlers.object.exclusive(
        EAGER_STATE,
        async (context: restate.ObjectContext): Promise<{ closed: string | null }> => {
          if ((await killedInvocation(context)) === null) return { closed: null };
          const loopOptions = terminalOnError(() => loop({ sessionId: context.key }));
          const tokens = loopOptions.tokens ?? (await loadTokens(loopOptions.encoding));
          const head = await readHead(context);
          return { closed: (await closeKilledRun({ context, head, limits, tokens })).runId };
        },
      ),

      result: restate.handlers.object.shared(
        async (
          context: restate.ObjectSharedContext,
          input?: { runId?: string },
        ): Promise<TurnResult | null> => {
          const runId = input?.runId ?? (await context.get<string>(stateKeys.lastRunId));
          if (runId === null || runId === undefined) return null;
          return (await context.get<TurnResult>(stateKeys.run(runId))) ?? null;
        },
      ),

      history: restate.handlers.object.shared(
        async (context: restate.ObjectSharedContext): Promise<readonly Item[]> =>
          effectiveHistory(await readStoredEvents(context)),
      ),

      log: restate.handlers.object.shared(
        async (
          context: restate.ObjectSharedContext,
          input?: TelemetryPageInput,
        ): Promise<{ events: readonly SessionEvent[]; nextSeq: number }> => {
          const { fromSeq, limit } = terminalOnError(() => parseTelemetryPageInput(input));
          const events = await readStoredEvents(context, { fromSeq, limit });
          return { events, nextSeq: fromSeq + events.length };
        },
      ),

      telemetry: restate.handlers.object.shared(
        async (
          context: restate.ObjectSharedContext,
          input?: TelemetryPageInput,
        ): Promise<TelemetryPage> => {
          const { fromSeq, limit } = terminalOnError(() => parseTelemetryPageInput(input));
          return await readTelemetryPage(context, { fromSeq, limit });
        },
      ),
    },
    options: { enableLazyState: true, ...objectOptions },
  });
}

/**
 * The exclusive handlers load the object's state in the invocation's start message. With the
 * index a send processes only what the loop needs (the head, the latest marker, the items it
 * keeps, the events since), and reading those keys one round trip each (lazy state) made a
 * send 3× slower on small sessions and 4.7× on a long session without markers; one start
 * message is cheaper, and `limits` keep it within the server's per-invocation memory. The
 * shared handlers read lazily, so they answer whatever the state's size.
 */
const EAGER_STATE = { enableLazyState: false } as const;

/** The object's type, for typed clients: `objectClient<LoopObject>({name: 'loopkeeper'}, id)`. */
export type LoopObject = ReturnType<typeof createLoopObject<typeof LOOP_OBJECT_NAME>>;

/** Bad input is the caller's mistake: retrying cannot fix it, so it is terminal. */
function terminalOnError<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new restate.TerminalError(describeThrownText(error), { errorCode: 400 });
  }
}
