import type { ObjectContext } from '@restatedev/restate-sdk';
import type { UserContent } from '../../machines/agent-loop.types.js';
import { ApprovalError } from '../errors/approval-error.js';
import { type AgentLoopActor, openAgentLoop } from '../runtime/create-agent-loop.js';
import {
  decide,
  pendingApprovals,
  type ToolApproval,
  type TurnResult,
  waitForTurn,
} from '../runtime/run-pause.js';
import type { TokenCounter } from '../tokens/types.js';
import { boundedResult } from './bounded-result.js';
import { durableModel } from './durable-model.js';
import { DurableSteps } from './durable-steps.js';
import { durableTools } from './durable-tools.js';
import type { LoopObjectLimits } from './limits.js';
import type { LoopObjectLoopOptions } from './loop-object-types.js';
import type { SessionHead } from './session-head.js';
import { RestateStateStore } from './state-store.js';
import { TelemetryRecorder } from './telemetry-recorder.js';

/** What a handler asks of the loop: a new message, or decisions for the run that waits. */
export type DurableAction =
  | { readonly type: 'message'; readonly content: UserContent; readonly runId: string }
  | { readonly type: 'decide'; readonly decisions: readonly ToolApproval[] };

/**
 * One run of the loop inside an exclusive handler: the loop is rebuilt from the object's log,
 * its model and tool calls become journaled steps, its telemetry is recorded, and the result is
 * read back from the log. Everything that is not deterministic (ids, clocks, answers) reaches
 * the journal through a step's result, so a retry on another worker replays to the same point.
 * A run that pauses for approval ends the handler with `awaiting_approval`: the wait lives in
 * the object's log, not in an open invocation, so it can last days; `decide` actions continue
 * it in place.
 */
export async function runDurableTurn({
  context,
  loopOptions,
  tokens,
  action,
  limits,
  head,
}: {
  readonly context: ObjectContext;
  readonly limits: Required<LoopObjectLimits>;
  /** The head as `send` read it (and whether it was rebuilt from the first layout). */
  readonly head: { readonly head: SessionHead; readonly migrated: boolean };
  readonly loopOptions: LoopObjectLoopOptions;
  readonly tokens: TokenCounter;
  readonly action: DurableAction;
}): Promise<TurnResult> {
  const sessionId = context.key;
  let loop: AgentLoopActor | undefined;
  const steps = new DurableSteps({
    context,
    onCancelled: () => loop?.send({ type: 'abort' }),
  });
  const recorder = new TelemetryRecorder({ context, steps });
  const store = new RestateStateStore({
    context,
    sessionId,
    steps,
    limits,
    head,
    afterAppend: () => recorder.flush(),
  });
  const { tools = [], ...options } = loopOptions;
  loop = await openAgentLoop({
    ...options,
    model: durableModel({ model: loopOptions.model, steps, maxAnswerBytes: limits.maxEntryBytes }),
    tools: durableTools({ tools, steps, sessionId, maxOutputBytes: limits.maxEntryBytes }),
    store,
    sessionId,
    tokens,
    interrupted: 'resume',
  });
  const actor = loop;
  const waiting = pendingApprovals(actor);
  const unfinished = actor.session.unfinishedRun;
  if (action.type === 'message' && unfinished !== null && waiting.length > 0) {
    throw new ApprovalError(
      `Session ${sessionId}: run ${unfinished.runId} waits for approval of ${waiting.map((call) => call.callId).join(', ')}; decide with approve() before sending a new message`,
      { code: 'approval_pending' },
    );
  }
  if (action.type === 'decide' && (unfinished === null || waiting.length === 0)) {
    throw new ApprovalError(`Session ${sessionId}: no run waits for approval`, {
      code: 'approval_not_pending',
    });
  }
  actor.on('*', (event) => recorder.observe(event));
  try {
    let turn: TurnResult;
    if (action.type === 'message') {
      const result = waitForTurn(actor, action.runId, { decided: [], fromLog: false });
      actor.start();
      actor.send({ type: 'user.message', content: action.content, runId: action.runId });
      turn = await result;
    } else {
      // `decide` waits for the resumed run to reach its wait before it checks the decisions.
      actor.start();
      turn = await decide(actor, action.decisions);
    }
    await recorder.flush();
    return boundedResult({ result: turn, maxBytes: limits.maxEntryBytes });
  } finally {
    actor.stop();
  }
}
