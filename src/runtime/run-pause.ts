import type { AgentLoopContext } from '../../machines/agent-loop.types.js';
import { ApprovalError } from '../errors/approval-error.js';
import { LoopNotRunningError } from '../errors/loop-not-running-error.js';
import type { PendingApproval, RunFinished } from '../events/telemetry-events.js';
import type { RunOutcome } from '../log/events.js';
import type { AgentLoopActor } from './create-agent-loop.js';
import { isLoopRunning } from './is-loop-running.js';
import { type TurnRecord, turnRecord, unavailableRecord } from './turn-record.js';

/** How a turn ended for now: a run outcome, or paused until calls are decided. */
export type TurnOutcome = RunOutcome | 'awaiting_approval';

/** A run that finished: its `RunFinished` event plus what it added to the log. */
export interface FinishedTurn extends RunFinished, TurnRecord {
  /** Always empty: a finished run waits for nothing. */
  readonly pending: readonly PendingApproval[];
}

/** A run that paused until every call in `pending` is decided (`decide`). */
export interface PausedTurn extends TurnRecord {
  readonly type: 'RunPaused';
  readonly sessionId: string;
  readonly runId: string;
  readonly at: number;
  readonly outcome: 'awaiting_approval';
  readonly steps: number;
  readonly error: undefined;
  readonly pending: readonly PendingApproval[];
}

/**
 * What one turn produced so far, read from the session log: the run finished (`RunFinished`
 * and its output), or it paused for approval with the calls it waits for.
 */
export type TurnResult = FinishedTurn | PausedTurn;

/** A person's decision on a call the run waits for. */
export interface ToolApproval {
  readonly callId: string;
  readonly approved: boolean;
  /** Told to the model with a denial; recorded in the log either way. */
  readonly reason?: string;
}

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
  const { session } = loop;
  const open = new Set(session.pendingToolCalls.map((call) => call.id));
  return session.progress.undecided
    .filter((call) => open.has(call.callId))
    .map(({ callId, toolName, arguments: text, argumentsHash }) => ({
      callId,
      toolName,
      arguments: text,
      argumentsHash,
    }));
}

/**
 * Decides calls the run waits for and resolves with the run's next pause or its end. Refuses,
 * with an `ApprovalError` and nothing recorded, a decision for a call the run does not wait for
 * (`approval_not_pending`), one decided already (`approval_already_decided`) and a malformed one
 * (`approval_invalid`). A loop just opened on a waiting run is waited for until it waits again.
 *
 * @example
 * ```ts
 * import { createAgentLoop, decide, defineTool, runTurn } from 'loopkeeper';
 * import { ScriptedModel } from 'loopkeeper/testing';
 *
 * const deploy = defineTool({
 *   name: 'deploy',
 *   description: 'Deploys the site.',
 *   parameters: { type: 'object', properties: {} },
 *   needsApproval: true,
 *   execute: async () => 'deployed',
 * });
 * const model = new ScriptedModel({
 *   turns: [{ toolCalls: [{ id: 'c1', name: 'deploy', arguments: {} }] }, { text: 'Done.' }],
 * });
 * const loop = createAgentLoop({ model, tools: [deploy] });
 * loop.start();
 * let result = await runTurn(loop, 'Deploy it.');
 * while (result.outcome === 'awaiting_approval') {
 *   result = await decide(
 *     loop,
 *     result.pending.map((call) => ({ callId: call.callId, approved: true })),
 *   );
 * }
 * console.log(result.outcome, result.text); // completed Done.
 * ```
 */
export async function decide(
  loop: AgentLoopActor,
  decisions: ToolApproval | readonly ToolApproval[],
): Promise<TurnResult> {
  const list = checkedDecisions(decisions);
  if (!isLoopRunning(loop)) {
    throw new LoopNotRunningError(
      'decide: the loop is not running; start it (a loop opened on a waiting run waits again once started)',
    );
  }
  const runId = loop.session.progress.unfinishedRun?.runId ?? contextOf(loop).runId;
  if (runId === null) {
    throw new ApprovalError(
      `decide: no run of session ${loop.session.sessionId} waits for approval`,
      {
        code: 'approval_not_pending',
      },
    );
  }
  // A resumed run reaches its wait asynchronously; a decision sent before would be ignored.
  await untilSettled(loop, runId);
  const context = contextOf(loop);
  const awaited = new Set(context.runId === runId ? (context.awaitingApproval ?? []) : []);
  for (const { callId } of list) {
    if (awaited.has(callId)) continue;
    const decided =
      loop.session.progress.decision(callId) !== undefined ||
      (context.decisions ?? []).some((queued) => queued.callId === callId);
    throw decided
      ? new ApprovalError(`decide: tool call ${callId} was decided already`, {
          code: 'approval_already_decided',
        })
      : new ApprovalError(
          `decide: run ${runId} does not wait for a decision on tool call ${callId}`,
          {
            code: 'approval_not_pending',
          },
        );
  }
  const result = waitForTurn(loop, runId, {
    decided: list.map(({ callId }) => callId),
    fromLog: true,
  });
  for (const decision of list) loop.send({ type: 'tool.approval', ...decision });
  return result;
}

/**
 * Waits for the run this loop took up from the log (`openAgentLoop` on a session whose last
 * run did not finish) to pause or end, and resolves with it; null when it took up none.
 *
 * @example
 * ```ts
 * import { FileSessionStore, openAgentLoop, resumeRun } from 'loopkeeper';
 * import { ScriptedModel } from 'loopkeeper/testing';
 *
 * const loop = await openAgentLoop({
 *   model: new ScriptedModel({ turns: [{ text: 'Picked up where I stopped.' }] }),
 *   store: new FileSessionStore({ directory: './sessions' }),
 *   sessionId: 'support-42',
 * });
 * loop.start();
 * const resumed = await resumeRun(loop); // null when the last run had finished
 * console.log(resumed?.outcome);
 * ```
 */
export async function resumeRun(loop: AgentLoopActor): Promise<TurnResult | null> {
  if (!isLoopRunning(loop)) {
    throw new LoopNotRunningError('resumeRun: the loop is not running; call start() first');
  }
  const context = contextOf(loop);
  const runId =
    loop.session.resumedRun?.runId ??
    (context.resumed === true ? context.runId : null) ??
    context.resume?.runId ??
    null;
  return runId === null ? null : waitForTurn(loop, runId, { decided: [], fromLog: true });
}

/**
 * Resolves with run `runId`'s next pause (past the decisions named in `decided`) or its end,
 * whichever comes first; at once when it is paused now. With `fromLog`, a run that is not in
 * progress is looked up in the log (it finished before anyone waited); without it (a run not
 * started yet, as `runTurn`'s) it is waited for.
 */
export function waitForTurn(
  loop: AgentLoopActor,
  runId: string,
  { decided, fromLog }: { readonly decided: readonly string[]; readonly fromLog: boolean },
): Promise<TurnResult> {
  const { session } = loop;
  // The run's own events start at its run-started: reading from there is enough.
  let startSeq =
    session.progress.unfinishedRun?.runId === runId ? session.progress.unfinishedRun.startSeq : 1;
  const ours = new Set(decided);
  return new Promise<TurnResult>((resolve, reject) => {
    let done = false;
    const finish = (result: Promise<TurnResult>): void => {
      if (done) return;
      done = true;
      started.unsubscribe();
      finished.unsubscribe();
      snapshots.unsubscribe();
      result.then(resolve, reject);
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
          (record) => ({ ...event, ...record, pending: [] }),
          (error: unknown) => ({ ...event, ...unavailableRecord(error), pending: [] }),
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
    check();
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
  const record = await turnRecord({ session: loop.session, runId, fromSeq });
  return {
    type: 'RunPaused',
    sessionId: loop.session.sessionId,
    runId,
    at: Date.now(),
    outcome: 'awaiting_approval',
    steps,
    error: undefined,
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
  return { ...finished, ...(await turnRecord({ session, runId, fromSeq })), pending: [] };
}

/** Waits until run `runId` waits for decisions with none queued, or is not running. */
function untilSettled(loop: AgentLoopActor, runId: string): Promise<void> {
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

function contextOf(loop: AgentLoopActor): AgentLoopContext {
  return loop.getSnapshot().context as AgentLoopContext;
}

function checkedDecisions(decisions: ToolApproval | readonly ToolApproval[]): ToolApproval[] {
  const list: unknown[] = Array.isArray(decisions) ? [...decisions] : [decisions];
  if (list.length === 0) {
    throw new ApprovalError('decide: no decisions given', { code: 'approval_invalid' });
  }
  const seen = new Set<string>();
  return list.map((value, index) => {
    const decision = value as Partial<ToolApproval> | null;
    const where = list.length === 1 ? 'the decision' : `decision ${index}`;
    if (typeof decision !== 'object' || decision === null) {
      throw new ApprovalError(`decide: ${where} must be an object {callId, approved, reason?}`, {
        code: 'approval_invalid',
      });
    }
    if (typeof decision.callId !== 'string' || decision.callId === '') {
      throw new ApprovalError(`decide: ${where} needs a callId (a non-empty string)`, {
        code: 'approval_invalid',
      });
    }
    if (typeof decision.approved !== 'boolean') {
      throw new ApprovalError(
        `decide: ${where} (call ${decision.callId}) needs approved: true or false`,
        {
          code: 'approval_invalid',
        },
      );
    }
    if (decision.reason !== undefined && typeof decision.reason !== 'string') {
      throw new ApprovalError(
        `decide: ${where} (call ${decision.callId}) has a reason that is not a string`,
        {
          code: 'approval_invalid',
        },
      );
    }
    if (seen.has(decision.callId)) {
      throw new ApprovalError(`decide: tool call ${decision.callId} is decided twice in one call`, {
        code: 'approval_already_decided',
      });
    }
    seen.add(decision.callId);
    return {
      callId: decision.callId,
      approved: decision.approved,
      ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    };
  });
}
