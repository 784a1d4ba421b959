import { randomUUID } from 'node:crypto';
import type { UserContent } from '../../machines/agent-loop.types.js';
import { LoopNotRunningError } from '../errors/loop-not-running-error.js';
import type { AgentLoopActor } from './create-agent-loop.js';
import { isLoopRunning } from './is-loop-running.js';
import { type TurnResult, waitForTurn } from './run-pause.js';

export type { FinishedTurn, PausedTurn, TurnOutcome, TurnResult } from './run-pause.js';

/**
 * Sends one user message and resolves with the result of the run that message starts, even
 * when other messages are queued or other `runTurn` calls overlap: the message carries a run
 * id chosen here, and only that run's events count. Resolves when the run finishes, or when it
 * pauses for approval (`outcome: 'awaiting_approval'`, with the `pending` calls; go on with
 * `decide`). Rejects with `LoopNotRunningError` when the loop was never started, is stopped or
 * closed, or stops before the run finishes. A run that finished always resolves: when only
 * reading its events back fails, the result carries `recordError` (and no text, items or usage)
 * instead of rejecting.
 *
 * @example
 * ```ts
 * import { createAgentLoop, runTurn } from 'loopkeeper';
 * import { ScriptedModel } from 'loopkeeper/testing';
 *
 * const loop = createAgentLoop({ model: new ScriptedModel({ turns: [{ text: 'Paris.' }] }) });
 * loop.start();
 * const { outcome, text, usage } = await runTurn(loop, 'Capital of France?');
 * console.log(outcome, text, usage);
 * ```
 */
export function runTurn(loop: AgentLoopActor, content: UserContent): Promise<TurnResult> {
  if (!isLoopRunning(loop)) {
    return Promise.reject(
      new LoopNotRunningError(
        `runTurn: the loop is not running (${loopState(loop)}); call start() first, or open a new loop on the session`,
      ),
    );
  }
  const runId = `${loop.session.sessionId}:run-${randomUUID()}`;
  const result = waitForTurn(loop, runId, { decided: [], fromLog: false });
  loop.send({ type: 'user.message', content, runId });
  return result;
}

function loopState(loop: AgentLoopActor): string {
  const status = loop.getSnapshot().status;
  return status === 'active' ? 'never started' : status;
}
