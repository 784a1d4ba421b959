import { performance } from 'node:perf_hooks';
import type { Compactor } from '../../src/compaction/index.js';
import {
  contextWindowTrigger,
  createAgentLoop,
  createCompactor,
  createTokenCounter,
  extractiveSummarizer,
  type Item,
  MemorySessionStore,
  type ModelAdapter,
  runTurn,
} from '../../src/index.js';
import { chatRequestBytes, type ModelRequest } from '../../src/model/index.js';
import {
  buildReplayPlan,
  createReplayTools,
  QUALITY_INSTRUCTIONS,
  ScriptedModel,
} from '../../src/testing/index.js';
import type { TokenCounter } from '../../src/tokens/index.js';
import { itemToChatMessage } from '../../src/transcript/index.js';
import { BENCH_OUTPUT_RESERVE } from './budget.js';
import { heapAfterGc } from './memory.js';

/** One request of the real loop and what the loop did since the model's previous answer. */
export interface ActorStep {
  /**
   * From the model's previous answer to this request serialized: logging the answer, running
   * the replay tools, logging their results, the budget check (and the compaction when it
   * fires), telemetry, and the Chat Completions body as UTF-8 JSON (`chatRequestBytes`).
   */
  readonly milliseconds: number;
  /** `performance.now()` when this request was serialized: the step ran `milliseconds` up to it. */
  readonly endedAt: number;
  /** The floor of the same step: exact, cold tokenization of the items new in this request. */
  readonly floorTokenize: number;
  /**
   * The floor's other part: `JSON.stringify` of this request's body, messages already built
   * (a whole serialization; the actor's own body is built incrementally and can come in under it).
   */
  readonly floorSerialize: number;
  /** Tool calls the model had made before this request. */
  readonly toolCallsSoFar: number;
  readonly requestItems: number;
  /** A compaction (or emergency prune) ran in this step. */
  readonly compacted: boolean;
}

export interface ActorRun {
  readonly steps: readonly ActorStep[];
  readonly compactions: number;
  readonly telemetryEvents: number;
  /** Tokens of the last request's items. */
  readonly lastRequestTokens: number;
  readonly lastRequestItems: number;
  /** Heap after full garbage collections, and RSS, with the finished loop still held. */
  readonly heapBytes: number;
  readonly rssBytes: number;
}

/** The body a Chat Completions adapter sends, tools as functions. */
function requestBody(request: ModelRequest, messages: readonly unknown[]): string {
  return JSON.stringify({
    model: 'bench',
    messages,
    tools: request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    })),
    parallel_tool_calls: true,
  });
}

/** The compactor the per-step benchmark runs: loopkeeper's default with the offline summarizer. */
export function defaultCompactor({ window }: { readonly window: number }): Compactor {
  return createCompactor({
    trigger: contextWindowTrigger({ window, outputReserve: BENCH_OUTPUT_RESERVE }),
    backend: extractiveSummarizer(),
  });
}

/**
 * Replays `items` (a recorded session) through the real loop: `createAgentLoop` with a
 * `ScriptedModel` answering the recorded turns, replay tools giving the recorded outputs, a
 * memory store, a fresh token counter (so every new item is tokenized cold, in the step that
 * brings it), and a telemetry listener on every event. The adapter around the scripted model
 * serializes each request as a Chat Completions body with `chatRequestBytes` (the UTF-8 bytes
 * of its JSON, built from the previous request's bytes plus the new messages); the scripted
 * model's own work (its usage estimate, with a counter of its own) is not timed.
 *
 * After the timed part of each step, the floor of that step is measured beside it: a second
 * fresh counter tokenizes only the items new in the request, and the body is serialized from
 * chat messages kept per item.
 */
export async function runActorSession({
  items,
  window,
  compactor = defaultCompactor({ window }),
  steps: maxSteps = Number.POSITIVE_INFINITY,
  floor = true,
}: {
  readonly items: readonly Item[];
  readonly window: number;
  readonly compactor?: Compactor;
  /** Stop after this many requests (a warm-up run). */
  readonly steps?: number;
  /** Measure the floor beside each step (a profile of the actor alone turns it off). */
  readonly floor?: boolean;
}): Promise<ActorRun> {
  const plan = buildReplayPlan({ recordings: [{ name: 'long session', items }] });
  const tokens: TokenCounter = await createTokenCounter();
  const floorCounter: TokenCounter = await createTokenCounter();
  const scripted = new ScriptedModel({
    turns: plan.answers,
    tokens: await createTokenCounter(),
    streamDeltas: false,
    model: 'recorded-replay',
  });

  const steps: ActorStep[] = [];
  const chatMessages = new Map<string, unknown>();
  let previousIds = new Set<string>();
  let lastAnswered: number | undefined;
  let toolCallsSoFar = 0;
  let compactedSinceAnswer = false;
  let lastRequest: readonly Item[] = [];

  /** The floor of a step, untimed by it: the new items counted cold, the body serialized. */
  const measureFloor = (request: ModelRequest) => {
    const fresh = request.transcript.filter((item) => !previousIds.has(item.id));
    const tokenizeStarted = performance.now();
    for (const item of fresh) floorCounter.countItem(item);
    const tokenized = performance.now();
    for (const item of fresh) chatMessages.set(item.id, itemToChatMessage(item));
    const messages = [
      { role: 'system', content: request.instructions },
      ...request.transcript.map((item) => chatMessages.get(item.id)),
    ];
    const serializeStarted = performance.now();
    requestBody(request, messages);
    return {
      tokenize: tokenized - tokenizeStarted,
      serialize: performance.now() - serializeStarted,
    };
  };

  const model: ModelAdapter = {
    name: 'bench-replay',
    model: 'recorded-replay',
    async generate(request) {
      // The bytes a provider adapter sends: `chatRequestBytes` serializes each message once and
      // appends it while the history only grows, so only the new items' JSON is written here.
      const body = chatRequestBytes({ request, model: 'bench', temperature: undefined });
      const serialized = performance.now();
      if (body.byteLength === 0) throw new Error('bench: an empty request body');
      if (lastAnswered !== undefined) {
        const measured = floor
          ? measureFloor(request)
          : { tokenize: Number.NaN, serialize: Number.NaN };
        steps.push({
          milliseconds: serialized - lastAnswered,
          endedAt: serialized,
          floorTokenize: measured.tokenize,
          floorSerialize: measured.serialize,
          toolCallsSoFar,
          requestItems: request.transcript.length,
          compacted: compactedSinceAnswer,
        });
      }
      if (floor) previousIds = new Set(request.transcript.map((item) => item.id));
      lastRequest = request.transcript;
      compactedSinceAnswer = false;
      if (steps.length >= maxSteps) throw new Error('bench: warm-up steps done');
      const response = await scripted.generate(request);
      toolCallsSoFar += response.toolCalls?.length ?? 0;
      lastAnswered = performance.now();
      return response;
    },
  };

  const loop = createAgentLoop({
    model,
    tools: createReplayTools({ toolNames: plan.toolNames, outputs: plan.outputs }),
    instructions: QUALITY_INSTRUCTIONS,
    compactor,
    store: new MemorySessionStore(),
    tokens,
    maxStepsPerRun: 100_000,
  });
  let compactions = 0;
  let telemetryEvents = 0;
  loop.on('*', () => {
    telemetryEvents += 1;
  });
  const compacted = () => {
    compactedSinceAnswer = true;
    compactions += 1;
  };
  loop.on('CompactionFinished', compacted);
  loop.on('EmergencyPruneApplied', compacted);
  loop.start();
  for (const turn of plan.turns) {
    const finished = await runTurn(loop, turn.content);
    if (steps.length >= maxSteps) break;
    if (finished.outcome !== 'completed') {
      throw new Error(
        `bench: a replayed turn ended ${finished.outcome}: ${finished.error?.message ?? ''}`,
      );
    }
  }
  const heapBytes = heapAfterGc();
  const rssBytes = process.memoryUsage().rss;
  loop.stop();
  return {
    steps,
    compactions,
    telemetryEvents,
    lastRequestTokens: tokens.count(lastRequest),
    lastRequestItems: lastRequest.length,
    heapBytes,
    rssBytes,
  };
}
