import { type AnyActorRef, fromPromise, type PromiseActorLogic } from 'xstate';
import type { ActorInvocation, CompactionStepInput } from '../../../machines/agent-loop.types.js';
import type {
  CommitResult,
  CommitTranscript,
  StepRequest,
} from '../../compaction/compaction-controller.js';
import { replacedItemId } from '../../compaction/helpers/derived-item.js';
import type { CompactingLoop, MutationMarker } from '../../compaction/types.js';
import type { TelemetryEvent } from '../../events/telemetry-events.js';
import { buildReplacementView } from '../../log/replacement-view.js';
import type { Item } from '../../transcript/types.js';
import { validateTranscript } from '../../transcript/validate-transcript.js';
import { type LoopServices, servicesOf } from '../loop-services.js';
import type { LoopSession } from '../loop-session.js';

/** What an invoked actor is given, as XState's promise actors get it. */
type PromiseActorArguments<Output, Input> = Parameters<
  Parameters<typeof fromPromise<Output, Input>>[0]
>[0];

/**
 * A promise actor shared by every loop: each invocation runs `body` with the services of the
 * loop that invoked it, so no loop needs actors (or a machine) of its own.
 */
export function loopActor<Output, Input extends ActorInvocation>(
  body: (services: LoopServices, options: PromiseActorArguments<Output, Input>) => Promise<Output>,
): PromiseActorLogic<Output, Input> {
  return fromPromise<Output, Input>(async (options) =>
    body(servicesOf(options.input.loop), options),
  );
}

/**
 * `loopActor` for work that can often be answered at once: when `now` answers (anything but
 * undefined), the actor is done as XState creates it, and the loop takes the answer in the same
 * run of its mailbox (no promise, abort controller or microtask between); when it cannot,
 * `body` runs as usual. An error `now` throws fails the invocation as a rejection would.
 */
export function loopActorAnsweringNow<Output, Input extends ActorInvocation>(
  now: (services: LoopServices, input: Input) => Output | undefined,
  body: (services: LoopServices, options: PromiseActorArguments<Output, Input>) => Promise<Output>,
): PromiseActorLogic<Output, Input> {
  const logic = loopActor(body);
  return {
    ...logic,
    getInitialSnapshot: (scope, input) => {
      const output = now(servicesOf(input.loop), input);
      if (output === undefined) return logic.getInitialSnapshot(scope, input);
      // As a resolved promise actor leaves it: done, with the output, the input let go.
      return { status: 'done', output, error: undefined, input: undefined };
    },
  };
}

/**
 * Hands telemetry produced inside an invoked actor to the listeners of the loop actor that
 * invoked it (`loop.on`), the same way the machine's own `emit` actions reach them. Works the
 * same for a root loop and for a loop spawned as a child.
 */
export function forward(loop: AnyActorRef, event: TelemetryEvent): void {
  servicesOf(loop).emit(event);
}

/** The loop a compaction or mutator runs for, as its backends are handed it. */
export function compactingLoop(input: ActorInvocation, actor: AnyActorRef): CompactingLoop {
  return {
    sessionId: input.sessionId,
    runId: input.runId,
    actor,
    emit: (event) => forward(input.loop, event),
  };
}

/**
 * The one way a compaction or mutation changes a loop's transcript: the result is validated
 * against the tool-call protocol (a broken one is reported, never logged), the abort signal is
 * checked, and the change is logged as one `transcript-replaced` marker for the run (or between
 * runs, for `runId` '').
 */
export async function commitTranscript(
  session: LoopSession,
  {
    runId,
    previous,
    next,
    marker,
    signal,
  }: {
    readonly runId: string;
    readonly previous: readonly Item[];
    readonly next: readonly Item[];
    readonly marker: MutationMarker;
    readonly signal: AbortSignal;
  },
): Promise<CommitResult> {
  const problems = validateTranscript(next);
  if (problems.length > 0) return { status: 'invalid', problems };
  if (signal.aborted) throw signal.reason;
  if (next === previous) return { status: 'unchanged' };
  const event = {
    type: 'transcript-replaced' as const,
    throughSeq: session.lastSeq,
    view: buildReplacementView({ previous, next, originOf: replacedItemId }),
    ...marker,
  };
  // A compaction the host asked for between runs belongs to none.
  if (runId === '') await session.appendBetweenRuns([event]);
  else await session.appendForRun(runId, [{ ...event, runId }]);
  return { status: 'changed' };
}

/** `commitTranscript` for a compaction step of the `CompactionController`. */
export function compactionCommit(
  session: LoopSession,
  input: { readonly runId: string; readonly reason: MutationMarker['reason'] },
  signal: AbortSignal,
): CommitTranscript {
  const previous = session.items;
  return (outcome) =>
    commitTranscript(session, {
      runId: input.runId,
      previous,
      next: outcome.transcript,
      signal,
      marker: {
        reason: input.reason,
        tier: outcome.tier,
        strategies: outcome.strategies,
        tokensBefore: outcome.tokensBefore,
        tokensAfter: outcome.tokensAfter,
      },
    });
}

/** What a compaction step of this loop works on, as the `CompactionController` takes it. */
export async function stepRequest(
  { session, overhead }: LoopServices,
  input: Pick<CompactionStepInput, 'runId' | 'reason' | 'point'>,
  signal: AbortSignal,
): Promise<StepRequest> {
  const tokens = await session.tokens();
  return {
    runId: input.runId,
    transcript: session.items,
    tokens,
    reason: input.reason,
    point: input.point,
    signal,
    ledger: session.ledger,
    originalOf: (item) => session.originalOf(item),
    overheadTokens: overhead.measure(session, tokens),
    ...(session.reported === undefined ? {} : { reported: session.reported }),
  };
}
