import { randomUUID } from 'node:crypto';
import type { UserContent } from '../../machines/agent-loop.types.js';
import { LoopNotRunningError } from '../errors/loop-not-running-error.js';
import type { RunFinished } from '../events/telemetry-events.js';
import type { AgentLoopActor } from './create-agent-loop.js';
import { isLoopRunning } from './is-loop-running.js';
import { type TurnRecord, turnRecord, unavailableRecord } from './turn-record.js';

/**
 * What one turn produced, read from the session log: a host needs no `session.items`. It is
 * the run's `RunFinished` event (`outcome`, `error`, `runId`, `steps`, ...) plus its output.
 */
export interface TurnResult extends RunFinished, TurnRecord {}

/**
 * Sends one user message and resolves with the result of the run that message starts, even
 * when other messages are queued or other `runTurn` calls overlap: the message carries a run
 * id chosen here, and only that run's events count. Rejects with `LoopNotRunningError` when the
 * loop was never started, is stopped or closed, or stops before the run finishes.
 * A run that finished always resolves: when only reading its events back fails, the result
 * carries `recordError` (and no text, items or usage) instead of rejecting.
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
  const { sessionId } = loop.session;
  const runId = `${sessionId}:run-${randomUUID()}`;
  return new Promise((resolve, reject) => {
    // Events appended before the run started belong to other runs; reading from here is enough.
    let fromSeq = 1;
    const started = loop.on('RunStarted', (event) => {
      if (event.runId === runId) fromSeq = loop.session.lastSeq + 1;
    });
    const finished = loop.on('RunFinished', (event) => {
      if (event.runId !== runId) return;
      cleanUp();
      // The run is over and logged as `event` says: failing to read its record back (a disk
      // error) must not look like a failed send, or a host that retries sends it twice.
      turnRecord({ session: loop.session, runId, fromSeq }).then(
        (record) => resolve({ ...event, ...record }),
        (error: unknown) => resolve({ ...event, ...unavailableRecord(error) }),
      );
    });
    const stopped = loop.subscribe({
      complete: () => {
        cleanUp();
        reject(new LoopNotRunningError(`runTurn: the loop stopped before run ${runId} finished`));
      },
      error: (error) => {
        cleanUp();
        reject(
          new LoopNotRunningError(`runTurn: the loop failed before run ${runId} finished`, {
            cause: error,
          }),
        );
      },
    });
    function cleanUp(): void {
      started.unsubscribe();
      finished.unsubscribe();
      stopped.unsubscribe();
    }
    loop.send({ type: 'user.message', content, runId });
  });
}

function loopState(loop: AgentLoopActor): string {
  const status = loop.getSnapshot().status;
  return status === 'active' ? 'never started' : status;
}
