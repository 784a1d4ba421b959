import type { Compactor } from '../../compaction/compactor-types.js';
import type { LoopMutator } from '../../compaction/types.js';
import type { TelemetryEvent } from '../../events/telemetry-events.js';
import { MemorySessionStore } from '../../log/memory-store.js';
import type { ModelAdapter, ToolSpec } from '../../model/types.js';
import { type AgentLoopActor, createAgentLoop } from '../../runtime/create-agent-loop.js';
import { runTurn, type TurnResult } from '../../runtime/run-turn.js';
import type { TokenCounter } from '../../tokens/types.js';
import { fromChatMessages } from '../../transcript/from-chat-messages.js';
import type { Item } from '../../transcript/types.js';
import { buildReplayPlan } from '../replay-plan.js';
import { createReplayTools } from '../replay-tools.js';
import { ScriptedModel } from '../scripted-model.js';

/**
 * Replays messages with an adapter of the harness's choosing (see docs/quality.md).
 *
 * @example
 * ```ts
 * import { QUALITY_INSTRUCTIONS, replayRecording } from 'loopkeeper/testing';
 * import { createTokenCounter } from 'loopkeeper';
 *
 * const replayed = await replayRecording({
 *   messages: [
 *     { role: 'user', content: 'Hi' },
 *     { role: 'assistant', content: 'Hello!' },
 *   ],
 *   tokens: await createTokenCounter(),
 *   instructions: `${QUALITY_INSTRUCTIONS} Keep every file path.`,
 * });
 * ```
 */
export const QUALITY_INSTRUCTIONS =
  'You are an agent whose recorded session is being replayed. Continue the work as recorded.';

export interface ReplayRecordingOptions {
  /** A recorded conversation as OpenAI chat messages; its system prompt is not replayed. */
  readonly messages: readonly unknown[];
  readonly tokens: TokenCounter;
  readonly compactor?: Compactor;
  /** Host mutators the replay's loop runs at their points (`createAgentLoop`'s `mutators`). */
  readonly mutators?: readonly LoopMutator[];
  readonly instructions?: string;
  /** Sees every telemetry event of the replay's loop. */
  readonly onTelemetry?: (event: TelemetryEvent) => void;
}

/** A request the model received, copied when it was made. */
export interface ReplayedRequest {
  readonly instructions: string | undefined;
  readonly tools: readonly ToolSpec[];
  readonly items: readonly Item[];
  /**
   * Every item the session had logged when the request was made (its `items-appended` events
   * up to then, in order). The items of it not in `items` are the dropped part at this request.
   */
  readonly logged: readonly Item[];
}

export interface ReplayedRecording {
  readonly recorded: readonly Item[];
  readonly requests: readonly ReplayedRequest[];
  /** The result of every recorded user turn, in order. */
  readonly turns: readonly TurnResult[];
  /** The stopped loop, whose session log holds everything the replay logged. */
  readonly loop: AgentLoopActor;
}

/**
 * Replays one recorded conversation through the real loop: a scripted model answering as
 * recorded, replay tools giving the recorded outputs, a memory store, and `compactor` if given.
 * Every request is copied as the model received it (the loop hands over its live history, which
 * grows in place), with the items the session had logged by then.
 *
 * @example
 * ```ts
 * import { replayRecording } from 'loopkeeper/testing';
 * import { createTokenCounter } from 'loopkeeper';
 *
 * const { requests, turns, loop } = await replayRecording({
 *   messages: [
 *     { role: 'user', content: 'Hi' },
 *     { role: 'assistant', content: 'Hello!' },
 *   ],
 *   tokens: await createTokenCounter(),
 * });
 * console.log(requests.length, turns[0]?.outcome);
 * loop.stop();
 * ```
 */
export async function replayRecording({
  messages,
  tokens,
  compactor,
  mutators,
  instructions = QUALITY_INSTRUCTIONS,
  onTelemetry,
}: ReplayRecordingOptions): Promise<ReplayedRecording> {
  const recorded = fromChatMessages(messages);
  const plan = buildReplayPlan({ recordings: [{ name: 'replay', items: recorded }] });
  const scripted = new ScriptedModel({ turns: plan.answers, tokens, model: 'recorded-replay' });
  const requests: ReplayedRequest[] = [];
  const store = new MemorySessionStore();
  // The adapter is built before the loop: the session id is set once the loop exists.
  let sessionId: string | undefined;
  const logged: Item[] = [];
  let seenSeq = 0;
  const model: ModelAdapter = {
    name: scripted.name,
    async generate(request) {
      const items = [...request.transcript];
      if (sessionId !== undefined) {
        for await (const event of store.read(sessionId, { fromSeq: seenSeq + 1 })) {
          seenSeq = event.seq;
          if (event.type === 'items-appended') logged.push(...event.items);
        }
      }
      // What was logged by now is a prefix of one shared list: a request keeps its length and
      // copies it only when asked, so a long replay holds the log once, not once per request.
      const loggedCount = logged.length;
      requests.push({
        instructions: request.instructions,
        tools: request.tools,
        items,
        get logged() {
          return logged.slice(0, loggedCount);
        },
      });
      return scripted.generate(request);
    },
  };
  const loop = createAgentLoop({
    model,
    tools: createReplayTools({ toolNames: plan.toolNames, outputs: plan.outputs }),
    instructions,
    store,
    tokens,
    maxStepsPerRun: 1_000,
    ...(compactor === undefined ? {} : { compactor }),
    ...(mutators === undefined ? {} : { mutators }),
  });
  sessionId = loop.session.sessionId;
  if (onTelemetry !== undefined) loop.on('*', onTelemetry);
  loop.start();
  const turns: TurnResult[] = [];
  for (const turn of plan.turns) turns.push(await runTurn(loop, turn.content));
  loop.stop();
  return { recorded, requests, turns, loop };
}
