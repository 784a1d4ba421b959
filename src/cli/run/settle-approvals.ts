import type { PendingApproval } from '../../events/telemetry-events.js';
import type { AgentLoopActor } from '../../runtime/create-agent-loop.js';
import {
  decide,
  type ToolApproval,
  type TurnResult,
  waitForTurn,
} from '../../runtime/run-pause.js';
import type { ApprovalMode } from './approval-modes.js';
import type { ApprovalPrompt } from './approval-prompt.js';

/** Recorded with each decision `--approve all` and `--approve none` make, and told to the model. */
const MODE_REASON: Readonly<Record<Exclude<ApprovalMode, 'ask'>, string>> = {
  all: 'approved by loopkeeper run --approve all',
  none: 'loopkeeper run was started with --approve none: calls that need approval are denied without asking',
};

/**
 * Takes a turn from its pause to its end: while the run waits for approval, decides the
 * waiting calls by `mode` (asking through `prompt` for `ask`) and sends the decisions. When
 * `signal` aborts the asking (Ctrl+C, which also aborts the loop), waits for the run's end.
 */
export async function settleApprovals({
  loop,
  turn,
  mode,
  prompt,
  signal,
  note,
}: {
  readonly loop: AgentLoopActor;
  readonly turn: TurnResult;
  readonly mode: ApprovalMode;
  readonly prompt: ApprovalPrompt;
  readonly signal: AbortSignal;
  readonly note: (text: string) => void;
}): Promise<TurnResult> {
  let result = turn;
  while (result.outcome === 'awaiting_approval') {
    const decisions =
      mode === 'ask' ? await prompt.ask(result.pending, signal) : decideAll(result.pending, mode);
    // Aborted while asking, or just before deciding: the run ends `aborted`; wait for its end.
    if (decisions === null || signal.aborted) {
      return waitForTurn(loop, result.runId, { decided: [], fromLog: true });
    }
    if (mode !== 'ask') {
      for (const call of result.pending) {
        note(
          `[approval] ${call.toolName} (${call.callId}) ${mode === 'all' ? 'approved' : 'denied'} (--approve ${mode}): ${call.arguments}`,
        );
      }
    }
    result = await decide(loop, decisions);
  }
  return result;
}

function decideAll(
  calls: readonly PendingApproval[],
  mode: Exclude<ApprovalMode, 'ask'>,
): ToolApproval[] {
  return calls.map((call) => ({
    callId: call.callId,
    approved: mode === 'all',
    reason: MODE_REASON[mode],
  }));
}
