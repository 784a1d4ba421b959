import type { AgentLoopContext } from '../../machines/agent-loop.types.js';
import { LoopNotRunningError } from '../errors/loop-not-running-error.js';
import type { PendingApproval, RunFinished } from '../events/telemetry-events.js';
import type { AgentLoopActor } from './create-agent-loop.js';
import { type TurnRecord, turnRecord, unavailableRecord } from './turn-record.js';
import type { FinishedTurn, PausedTurn, TurnResult } from './turn-result.js';

/**
 * The calls the session's current run waits for, in the order they were requested; empty
 * when no run waits. Read from the log, so it works on a loop just opened in another process.
 *
 * @example
 * ```ts
 * import { FileSessionStore, openAgentLoop, pendingApprovals } from 'loopkeeper';
 * import { ScriptedModel } from 'loopkeeper/testing';
 *
 * const loop = await openAgentLoop({
 *   model: new ScriptedModel({ turns: [] }),
 *   store: new FileSessionStore({ directory: './sessions' }),
 *   sessionId: 'deploy-7',
 * });
 * for (const call of pendingApprovals(loop)) console.log(call.toolName, call.arguments);
 * ```
 */
export function pendingApprovals(loop: AgentLoopActor): readonly PendingApproval[] {
  return loop.session.progress.waiting;
}

/**
 * Resolves with run `runId`'s next pause (past the decisions named in `decided`) or its end,
 * whichever comes first; at once when it is paused now. With `fromLog`, a run that is not in
 * progress is looked up in the log (it finished before anyone waited); without it (a run not
 * started yet, as `runTurn`'s) it is waited for. Aborting `until` stops waiting: the listeners
 * are removed and the promise never settles.
 */
export function waitForTurn(
  loop: AgentLoopActor,
  runId: string,
  {
    decided,
    fromLog,
    until,
  }: {
    readonly decided: readonly string[];
    readonly fromLog: boolean;
    readonly until?: AbortSignal;
  },
): Promise<TurnResult> {
  const { session } = loop;
  // The run's own events start at its run-started: reading from there is enough.
  let startSeq =
    session.progress.unfinishedRun?.runId === runId ? session.progress.unfinishedRun.startSeq : 1;
  const ours = new Set(decided);
  return new Promise<TurnResult>((resolve, reject) => {
    let done = false;
    const stop = (): boolean => {
      if (done) return false;
      done = true;
      started.unsubscribe();
      finished.unsubscribe();
      snapshots.unsubscribe();
      until?.removeEventListener('abort', stop);
      return true;
    };
    const finish = (result: Promise<TurnResult>): void => {
      if (stop()) result.then(resolve, reject);
    };
    const started = loop.on('RunStarted', (event) => {
      if (event.runId === runId) startSeq = session.lastSeq + 1;
    });
    const finished = loop.on('RunFinished', (event) => {
      if (event.runId !== runId) return;
      // The run is over and logged as `event` says: failing to read its record back (a disk
      // error) must not look like a failed send, or a host that retries sends it twice.
      finish(
        turnRecord({ session, runId, fromSeq: startSeq }).then(
          ({ record, at }) => finishedTurn({ ...event, at: at ?? event.at }, record),
          (error: unknown) => finishedTurn(event, unavailableRecord(error)),
        ),
      );
    });
    const check = (): void => {
      const snapshot = loop.getSnapshot();
      const context = snapshot.context as AgentLoopContext;
      if (snapshot.status !== 'active') {
        finish(
          Promise.reject(new LoopNotRunningError(`the loop stopped before run ${runId} finished`)),
        );
        return;
      }
      if (context.runId === runId && isPaused(snapshot, context, ours)) {
        finish(pausedTurn(loop, runId, startSeq, context.steps));
      } else if (fromLog && (!isRunning(snapshot) || context.runId !== runId)) {
        // Not this run's turn now: finished before we looked, or not started yet.
        if (session.progress.unfinishedRun?.runId !== runId && context.resume?.runId !== runId) {
          finish(finishedFromLog(loop, runId, startSeq));
        }
      }
    };
    const snapshots = loop.subscribe({
      next: check,
      complete: () =>
        finish(
          Promise.reject(new LoopNotRunningError(`the loop stopped before run ${runId} finished`)),
        ),
      error: (error) =>
        finish(
          Promise.reject(
            new LoopNotRunningError(`the loop failed before run ${runId} finished`, {
              cause: error,
            }),
          ),
        ),
    });
    until?.addEventListener('abort', stop, { once: true });
    if (until?.aborted === true) stop();
    else check();
  });
}

function isRunning(snapshot: ReturnType<AgentLoopActor['getSnapshot']>): boolean {
  return snapshot.matches('running');
}

function isPaused(
  snapshot: ReturnType<AgentLoopActor['getSnapshot']>,
  context: AgentLoopContext,
  decided: ReadonlySet<string>,
): boolean {
  if (!snapshot.matches({ running: 'awaitingApproval' })) return false;
  if ((context.decisions ?? []).length > 0) return false;
  return !(context.awaitingApproval ?? []).some((callId) => decided.has(callId));
}

async function pausedTurn(
  loop: AgentLoopActor,
  runId: string,
  fromSeq: number,
  steps: number,
): Promise<PausedTurn> {
  const pending = pendingApprovals(loop);
  const { record, at } = await turnRecord({ session: loop.session, runId, fromSeq });
  return {
    type: 'RunPaused',
    sessionId: loop.session.sessionId,
    runId,
    at: at ?? Date.now(),
    outcome: 'awaiting_approval',
    steps,
    error: null,
    pending,
    ...record,
  };
}

/** A run that finished before anyone waited for it: its result, from the log alone. */
async function finishedFromLog(
  loop: AgentLoopActor,
  runId: string,
  fromSeq: number,
): Promise<FinishedTurn> {
  const { session } = loop;
  let finished: RunFinished | undefined;
  for await (const event of session.store.read(session.sessionId, { fromSeq })) {
    if (event.type === 'run-finished' && event.runId === runId) {
      finished = {
        type: 'RunFinished',
        sessionId: session.sessionId,
        runId,
        at: Date.parse(event.at),
        outcome: event.outcome,
        steps: event.steps,
        error: event.error,
      };
    }
  }
  if (finished === undefined) {
    throw new LoopNotRunningError(`run ${runId} is neither running nor finished in the log`);
  }
  const { record, at } = await turnRecord({ session, runId, fromSeq });
  return finishedTurn({ ...finished, at: at ?? finished.at }, record);
}

/** A finished run's result: its `RunFinished` event and its record, absent values as null. */
function finishedTurn(event: RunFinished, record: TurnRecord): FinishedTurn {
  return { ...event, error: event.error ?? null, ...record, pending: [] };
}

/** Waits until run `runId` waits for decisions with none queued, or is not running. */
export function untilSettled(loop: AgentLoopActor, runId: string): Promise<void> {
  const settled = (): boolean => {
    const snapshot = loop.getSnapshot();
    const context = snapshot.context as AgentLoopContext;
    if (snapshot.status !== 'active') return true;
    if (context.resume?.runId === runId) return false;
    if (!isRunning(snapshot) || context.runId !== runId) return true;
    return isPaused(snapshot, context, new Set());
  };
  if (settled()) return Promise.resolve();
  return new Promise((resolve) => {
    const subscription = loop.subscribe({
      next: () => {
        if (!settled()) return;
        subscription.unsubscribe();
        resolve();
      },
      complete: () => resolve(),
      error: () => resolve(),
    });
  });
}

export function contextOf(loop: AgentLoopActor): AgentLoopContext {
  return loop.getSnapshot().context as AgentLoopContext;
}
