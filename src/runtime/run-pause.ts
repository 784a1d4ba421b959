import { ApprovalError } from '../errors/approval-error.js';
import { LoopNotRunningError } from '../errors/loop-not-running-error.js';
import { isRecord, shapeProblems } from '../vocabulary/schemas/describe-issues.js';
import { ToolApprovalSchema } from '../vocabulary/schemas/host-input.js';
import type { AgentLoopActor } from './create-agent-loop.js';
import { isLoopRunning } from './is-loop-running.js';
import type { ToolApproval, TurnResult } from './turn-result.js';
import { contextOf, untilSettled, waitForTurn } from './wait-for-turn.js';

export type {
  FinishedTurn,
  PausedTurn,
  ToolApproval,
  TurnOutcome,
  TurnResult,
} from './turn-result.js';
export { pendingApprovals, waitForTurn } from './wait-for-turn.js';

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

function checkedDecisions(decisions: ToolApproval | readonly ToolApproval[]): ToolApproval[] {
  const list: unknown[] = Array.isArray(decisions) ? [...decisions] : [decisions];
  if (list.length === 0) {
    throw new ApprovalError('decide: no decisions given', { code: 'approval_invalid' });
  }
  const seen = new Set<string>();
  return list.map((value, index) => {
    const problems = shapeProblems(ToolApprovalSchema, value, 'it');
    if (problems.length > 0) {
      const { callId } = isRecord(value) ? value : {};
      const call = typeof callId === 'string' && callId !== '' ? ` (call ${callId})` : '';
      const where = list.length === 1 ? 'the decision' : `decision ${index}`;
      throw new ApprovalError(`decide: ${where}${call}: ${problems.join('; ')}`, {
        code: 'approval_invalid',
      });
    }
    const { callId, approved, reason } = value as ToolApproval;
    if (seen.has(callId)) {
      throw new ApprovalError(`decide: tool call ${callId} is decided twice in one call`, {
        code: 'approval_already_decided',
      });
    }
    seen.add(callId);
    return { callId, approved, ...(reason === undefined ? {} : { reason }) };
  });
}
