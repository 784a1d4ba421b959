import type { ObjectContext } from '@restatedev/restate-sdk';
import type { UserContent } from '../../machines/agent-loop.types.js';
import type { RunFinished } from '../events/telemetry-events.js';
import { type AgentLoopActor, createAgentLoop } from '../runtime/create-agent-loop.js';
import { turnRecord } from '../runtime/turn-record.js';
import type { TokenCounter } from '../tokens/types.js';
import { boundedResult } from './bounded-result.js';
import { durableModel } from './durable-model.js';
import { DurableSteps } from './durable-steps.js';
import { durableTools } from './durable-tools.js';
import type { LoopObjectLimits } from './limits.js';
import type { DurableTurnResult, LoopObjectLoopOptions } from './loop-object-types.js';
import type { SessionHead } from './session-head.js';
import { RestateStateStore } from './state-store.js';
import { TelemetryRecorder } from './telemetry-recorder.js';

/**
 * One run of the loop inside an exclusive handler: the loop is rebuilt from the object's log,
 * its model and tool calls become journaled steps, its telemetry is recorded, and the result is
 * read back from the log. Everything that is not deterministic (ids, clocks, answers) reaches
 * the journal through a step's result, so a retry on another worker replays to the same point.
 */
export async function runDurableTurn({
  context,
  loopOptions,
  tokens,
  content,
  runId,
  limits,
  head,
}: {
  readonly context: ObjectContext;
  readonly limits: Required<LoopObjectLimits>;
  /** The head as `send` read it (and whether it was rebuilt from the first layout). */
  readonly head: { readonly head: SessionHead; readonly migrated: boolean };
  readonly loopOptions: LoopObjectLoopOptions;
  readonly tokens: TokenCounter;
  readonly content: UserContent;
  readonly runId: string;
}): Promise<DurableTurnResult> {
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
  loop = createAgentLoop({
    ...options,
    model: durableModel({ model: loopOptions.model, steps, maxAnswerBytes: limits.maxEntryBytes }),
    tools: durableTools({ tools, steps, sessionId, maxOutputBytes: limits.maxEntryBytes }),
    store,
    sessionId,
    tokens,
  });
  const actor = loop;
  await actor.session.open();
  actor.on('*', (event) => recorder.observe(event));
  const finished = new Promise<RunFinished>((resolve, reject) => {
    actor.on('RunFinished', (event) => {
      if (event.runId === runId) resolve(event);
    });
    actor.subscribe({ error: reject });
  });
  actor.start();
  const fromSeq = actor.session.lastSeq + 1;
  actor.send({ type: 'user.message', content, runId });
  try {
    const event = await finished;
    await recorder.flush();
    const record = await turnRecord({ session: actor.session, runId, fromSeq });
    return boundedResult({
      result: {
        runId,
        outcome: event.outcome,
        steps: event.steps,
        error: event.error ?? null,
        text: record.text ?? null,
        itemsAdded: record.itemsAdded,
        usage: record.usage,
      },
      maxBytes: limits.maxEntryBytes,
    });
  } finally {
    actor.stop();
  }
}
