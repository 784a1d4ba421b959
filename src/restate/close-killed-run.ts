import type { ObjectContext } from '@restatedev/restate-sdk';
import type { SessionEvent } from '../log/events.js';
import { LoopSession } from '../runtime/loop-session.js';
import type { TurnResult } from '../runtime/turn-result.js';
import type { TokenCounter } from '../tokens/types.js';
import { DurableSteps } from './durable-steps.js';
import type { LoopObjectLimits } from './limits.js';
import type { SessionHead } from './session-head.js';
import { stateKeys } from './state-keys.js';
import { RestateStateStore } from './state-store.js';

/**
 * Whether the invocation that last ran the loop ended without clearing its mark: it was killed
 * (through the admin API, or by `abortLoopSession` when cancellation could not reach it) or
 * failed terminally, so the run it drove may be open in the log. A retry of the same invocation
 * finds its own id and resumes instead.
 */
export async function killedInvocation(context: ObjectContext): Promise<string | null> {
  const active = await context.get<string>(stateKeys.activeInvocation);
  return active === null || active === context.request().id ? null : active;
}

/**
 * Closes the run a killed invocation left open, as a reopened session in one process closes an
 * interrupted run: open tool calls get synthetic `isError` results and the run a `run-finished`
 * (`failed`, `interrupted`); its result is recorded, so `result({runId})` and a send of the same
 * `runId` answer with it. Returns that run id (null when no run was open) and the new head.
 */
export async function closeKilledRun({
  context,
  head,
  limits,
  tokens,
}: {
  readonly context: ObjectContext;
  readonly head: { readonly head: SessionHead; readonly migrated: boolean };
  readonly limits: Required<LoopObjectLimits>;
  readonly tokens: TokenCounter;
}): Promise<{ readonly runId: string | null; readonly head: SessionHead }> {
  const sessionId = context.key;
  const steps = new DurableSteps({ context, onCancelled: () => undefined });
  const store = new RestateStateStore({ context, sessionId, steps, limits, head });
  const session = new LoopSession({ store, sessionId, tokens, interrupted: 'fail' });
  await session.open();
  context.clear(stateKeys.activeInvocation);
  const closing: SessionEvent[] = [];
  for await (const event of store.read(sessionId, { fromSeq: head.head.lastSeq + 1 })) {
    closing.push(event);
  }
  const finished = closing.find((event) => event.type === 'run-finished');
  const after = await store.head();
  if (finished?.type !== 'run-finished') return { runId: null, head: after };
  const result: TurnResult = {
    type: 'RunFinished',
    sessionId,
    runId: finished.runId,
    at: Date.parse(finished.at),
    outcome: finished.outcome,
    steps: finished.steps,
    error: finished.error ?? null,
    text: null,
    itemsAdded: [],
    usage: { promptTokens: 0, completionTokens: 0 },
    pending: [],
  };
  context.set(stateKeys.run(finished.runId), result);
  context.set(stateKeys.lastRunId, finished.runId);
  return { runId: finished.runId, head: after };
}
