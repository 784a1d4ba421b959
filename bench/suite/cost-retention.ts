import type { SessionEntry } from '@mariozechner/pi-coding-agent';
import type { Compactor, LoopMutator } from '../../src/compaction/index.js';
import { DEFAULT_TOOL_OUTPUT_SHARE } from '../../src/compaction/tool-output-limit.js';
import { CONTEXT_WINDOW_DEFAULTS } from '../../src/compaction/triggers/context-window-trigger.js';
import {
  contextWindowTrigger,
  createCompactor,
  extractiveSummarizer,
  fromChatMessages,
  type Item,
} from '../../src/index.js';
import type { ToolSpec } from '../../src/model/index.js';
import { QUALITY_INSTRUCTIONS, replayRecording } from '../../src/testing/index.js';
import { countRequest, type TokenCounter } from '../../src/tokens/index.js';
import { loadTranscriptFixtures } from '../../test/support/transcripts.js';
import { type CostPoint, costRetentionSvg } from './cost-retention-chart.js';
import { keepingFloorBill } from './keeping-floor.js';
import { buildLongSession } from './long-session.js';
import { markdownTable, type ReportSection } from './markdown.js';
import {
  modelMessagesToItems,
  pruneForNextStep,
  pruneKeepingLast,
  toModelMessages,
} from './peers/ai-sdk.js';
import { prepareStepRequests } from './peers/ai-sdk-loopkeeper.js';
import {
  createLangChainTokenCounter,
  langChainMessagesToItems,
  toLangChainMessages,
  trimToBudget,
} from './peers/langchain.js';
import { piPrepare, piSettings, toPiEntries } from './peers/pi.js';
import {
  averageRetention,
  OUTPUT_LINE_MIN_CHARACTERS,
  type StepRetention,
  stepRetention,
} from './retention.js';
import { earlierWorkOf, indexedStepRetention, VisibilityIndex } from './retention-index.js';
import { formatCount, formatPercent, formatRatio } from './stats.js';

/**
 * Each transcript's context window as a share of its tokens: where the 80% line of the former
 * default fell at 30% of them, the quality harness's first line. The window stays fixed, as a
 * model's does, so a change of the default line shows as a change of the bill; every strategy
 * with a budget works to the default trigger's line in it.
 */
const WINDOW_SHARE = 0.3 / 0.8;
/** Providers cache prompt prefixes of at least 1,024 tokens, in steps of 128 (OpenAI's rule). */
const CACHE_MINIMUM = 1_024;
const CACHE_STEP = 128;
const PRICE_MODELS = [
  { name: 'cached 0.1×', read: 0.1, write: 1 },
  { name: 'cached 0.25×', read: 0.25, write: 1 },
  { name: 'cached 0.5×', read: 0.5, write: 1 },
  { name: 'cached 0.1×, writes 1.25×', read: 0.1, write: 1.25 },
] as const;

/** One transcript's replay: the requests an unmanaged loop sends, and the session's budget. */
export interface Replay {
  readonly name: string;
  readonly line: number;
  readonly window: number;
  readonly target: number;
  readonly instructions: string;
  readonly tools: readonly ToolSpec[];
  readonly requests: readonly (readonly Item[])[];
}

interface Strategy {
  readonly name: string;
  readonly how: string;
  /** The requests this strategy sends for the replay, one per request of the unmanaged loop. */
  requests(replay: Replay): Promise<readonly (readonly Item[])[]>;
}

/** Replays one recording through the real loop and keeps a copy of every request. */
export async function replayLoop({
  messages,
  counter,
  compactor,
  mutators,
}: {
  messages: readonly unknown[];
  counter: TokenCounter;
  compactor?: Compactor;
  mutators?: readonly LoopMutator[];
}): Promise<{ requests: (readonly Item[])[]; tools: readonly ToolSpec[] }> {
  const replayed = await replayRecording({
    messages,
    tokens: counter,
    ...(compactor === undefined ? {} : { compactor }),
    ...(mutators === undefined ? {} : { mutators }),
  });
  const failed = replayed.turns.find((turn) => turn.outcome !== 'completed');
  if (failed !== undefined) throw new Error(`bench: a replayed turn ended ${failed.outcome}`);
  return {
    requests: replayed.requests.map((request) => request.items),
    tools: replayed.requests[0]?.tools ?? [],
  };
}

function trigger(replay: Pick<Replay, 'window'>, targetRatio?: number, percent?: number) {
  return contextWindowTrigger({
    window: replay.window,
    outputReserve: 0,
    ...(targetRatio === undefined ? {} : { targetRatio }),
    ...(percent === undefined ? {} : { percent }),
  });
}

/** A replay's requests in `window`, with the line and target the default trigger puts there. */
function replayAt({
  name,
  window,
  tools,
  requests,
  counter,
}: Pick<Replay, 'name' | 'window' | 'tools' | 'requests'> & {
  readonly counter: TokenCounter;
}): Replay {
  const { budget } = trigger({ window }).evaluate({ transcript: [], tokens: counter });
  return {
    name,
    line: budget.maxTokens,
    window,
    target: budget.targetTokens,
    instructions: QUALITY_INSTRUCTIONS,
    tools,
    requests,
  };
}

/** The deeper-target setting: compaction aims at 40% of the default line rather than 60%. */
export const DEEPER_TARGET = { targetRatio: 0.4 } as const;

/** The cost-leaning setting: a deeper target, and old tool outputs masked early, in batches. */
export const COST_LEANING = {
  targetRatio: 0.4,
  protectRecentShare: 0.15,
  minSavingsShare: 0.1,
} as const;

/** The former default: the line at 80% of the window, and no cap on new tool outputs. */
export const FORMER_DEFAULT = { percent: 80 } as const;

function costLeaningCompactor(replay: Replay): Compactor {
  const target = replay.line * COST_LEANING.targetRatio;
  return createCompactor({
    trigger: trigger(replay, COST_LEANING.targetRatio),
    backend: extractiveSummarizer(),
    structural: {
      pruneToolResults: {
        protectRecentTokens: Math.round(target * COST_LEANING.protectRecentShare),
        minSavingsTokens: Math.round(target * COST_LEANING.minSavingsShare),
      },
    },
  });
}

export function strategies(
  counter: TokenCounter,
  messagesOf: (name: string) => readonly unknown[],
) {
  const loopkeeper = async (
    replay: Replay,
    compactor: Compactor,
    mutators?: readonly LoopMutator[],
  ) => {
    const { requests } = await replayLoop({
      messages: messagesOf(replay.name),
      counter,
      compactor,
      ...(mutators === undefined ? {} : { mutators }),
    });
    if (requests.length !== replay.requests.length)
      throw new Error('bench: a compacting replay sent a different number of requests');
    return requests;
  };
  const list: Strategy[] = [
    {
      name: 'no management',
      how: 'the whole history on every request (requests over the window are billed as if they fit)',
      requests: async (replay) => replay.requests,
    },
    {
      name: 'LangChain `trimMessages`',
      how: 'newest messages within the line, starting on a human message, before every call',
      async requests(replay) {
        const tokenCounter = createLangChainTokenCounter();
        const last = replay.requests.at(-1) ?? [];
        const byId = new Map(last.map((item) => [item.id, item]));
        const out: Item[][] = [];
        for (const request of replay.requests) {
          const trimmed = await trimToBudget(toLangChainMessages(request), {
            maxTokens: replay.line,
            tokenCounter,
          });
          out.push(langChainMessagesToItems(trimmed, byId));
        }
        return out;
      },
    },
    {
      name: 'LangChain `trimMessages`, for agent transcripts',
      how: "the same, allowed to start on an AI message as well (`startOn: ['human', 'ai']`), so a long tool loop is not trimmed to nothing",
      async requests(replay) {
        const tokenCounter = createLangChainTokenCounter();
        const last = replay.requests.at(-1) ?? [];
        const byId = new Map(last.map((item) => [item.id, item]));
        const out: Item[][] = [];
        for (const request of replay.requests) {
          const trimmed = await trimToBudget(toLangChainMessages(request), {
            maxTokens: replay.line,
            tokenCounter,
            startOn: ['human', 'ai'],
          });
          out.push(langChainMessagesToItems(trimmed, byId));
        }
        return out;
      },
    },
    {
      name: 'plain head/tail cap',
      how: `no management but each tool output over ${DEFAULT_TOOL_OUTPUT_SHARE} × window tokens (at 4 characters a token) cut to its head and tail, with a note of how much was cut: a baseline for loopkeeper's default cap`,
      async requests(replay) {
        const capCharacters = Math.round(replay.window * DEFAULT_TOOL_OUTPUT_SHARE) * 4;
        const capped = new Map<string, Item>();
        const cap = (item: Item): Item => {
          if (item.kind !== 'toolResult' || item.content.length <= capCharacters) return item;
          let copy = capped.get(item.id);
          if (copy === undefined) {
            const half = Math.floor(capCharacters / 2);
            const cut = item.content.length - 2 * half;
            copy = {
              ...item,
              id: `capped_${item.id}`,
              content: `${item.content.slice(0, half)}\n[… ${cut} characters cut …]\n${item.content.slice(-half)}`,
            };
            capped.set(item.id, copy);
          }
          return copy;
        };
        return replay.requests.map((request) => request.map(cap));
      },
    },
    {
      name: 'AI SDK `pruneMessages`, last 2',
      how: 'documented `prepareStep` options: tool calls and results dropped before the last 2 messages',
      requests: async (replay) =>
        replay.requests.map((request) =>
          modelMessagesToItems(pruneForNextStep(toModelMessages(request)), request),
        ),
    },
    {
      name: 'AI SDK `pruneMessages`, last 10',
      how: 'the same with `toolCalls: "before-last-10-messages"`',
      requests: async (replay) =>
        replay.requests.map((request) =>
          modelMessagesToItems(pruneKeepingLast(toModelMessages(request), 10), request),
        ),
    },
    {
      name: 'AI SDK + **loopkeeper** `prepareStep`',
      how: "`compactionPrepareStep({compactor})` from `loopkeeper/ai-sdk` with the default compactor, given the history as AI SDK `ModelMessage`s before every step (no reported usage: the instructions' and tools' tokens are passed as `overheadTokens`)",
      requests: (replay) =>
        prepareStepRequests({
          replay,
          counter,
          compactor: createCompactor({ trigger: trigger(replay), backend: extractiveSummarizer() }),
        }),
    },
    {
      name: 'AI SDK + **loopkeeper** `prepareStep`, cost-leaning',
      how: 'the same with the cost-leaning compactor below',
      requests: (replay) =>
        prepareStepRequests({ replay, counter, compactor: costLeaningCompactor(replay) }),
    },
    {
      name: "pi's cut",
      how: "at the line, `prepareCompaction` keeps the newest target's worth of turns; pi's LLM summary of the rest is not run, so nothing stands for it",
      async requests(replay) {
        const settings = piSettings({
          keepRecentTokens: replay.target,
          reserveTokens: replay.window - replay.line,
        });
        const out: Item[][] = [];
        let keptFrom = 0;
        for (const request of replay.requests) {
          let context = request.slice(keptFrom);
          if (counter.count(context) > replay.line) {
            const entries: SessionEntry[] = toPiEntries(
              context,
              context.map((item) => counter.countItem(item)),
            );
            const preparation = piPrepare({ entries, settings });
            const index = request.findIndex((item) => item.id === preparation?.firstKeptEntryId);
            if (index > keptFrom) keptFrom = index;
            context = request.slice(keptFrom);
          }
          out.push(context);
        }
        return out;
      },
    },
    {
      name: '**loopkeeper** default',
      how: `\`createCompactor({trigger: contextWindowTrigger(...), backend: extractiveSummarizer()})\`: the line at ${CONTEXT_WINDOW_DEFAULTS.percent}% of the window, aiming at ${CONTEXT_WINDOW_DEFAULTS.targetRatio} of it, and each new tool output over ${DEFAULT_TOOL_OUTPUT_SHARE} × window reaching the model clipped (head, tail, a note naming the facts cut); the log keeps it whole`,
      requests: (replay) =>
        loopkeeper(
          replay,
          createCompactor({ trigger: trigger(replay), backend: extractiveSummarizer() }),
        ),
    },
    {
      name: '**loopkeeper** cost-leaning',
      how: `the same with \`targetRatio: ${COST_LEANING.targetRatio}\` and \`structural: {pruneToolResults: {protectRecentTokens: ${COST_LEANING.protectRecentShare} × target, minSavingsTokens: ${COST_LEANING.minSavingsShare} × target}}\`: old outputs masked in batches, placeholders keep their facts`,
      requests: (replay) => loopkeeper(replay, costLeaningCompactor(replay)),
    },
    {
      name: '**loopkeeper** former default',
      how: `\`contextWindowTrigger({..., percent: ${FORMER_DEFAULT.percent}})\` and \`toolOutputLimit: false\`, the rest default: the default until 7 December 2026, every new output shown whole`,
      requests: (replay) =>
        loopkeeper(
          replay,
          createCompactor({
            trigger: trigger(replay, undefined, FORMER_DEFAULT.percent),
            backend: extractiveSummarizer(),
            toolOutputLimit: false,
          }),
        ),
    },
    {
      name: '**loopkeeper** deeper target',
      how: `\`contextWindowTrigger({..., targetRatio: ${DEEPER_TARGET.targetRatio}})\`, the rest default: each compaction goes deeper, so compactions are rarer and the requests after one smaller`,
      requests: (replay) =>
        loopkeeper(
          replay,
          createCompactor({
            trigger: trigger(replay, DEEPER_TARGET.targetRatio),
            backend: extractiveSummarizer(),
          }),
        ),
    },
  ];
  return list;
}

/**
 * What each request after the first still shows of the work logged before it: request i is
 * measured against the unmanaged session's request i - 1, which holds everything logged so far.
 */
export function requestRetention(
  replay: Replay,
  requests: readonly (readonly Item[])[],
): StepRetention[] {
  const steps: StepRetention[] = [];
  for (let index = 1; index < requests.length; index += 1) {
    steps.push(
      stepRetention({
        earlier: replay.requests[index - 1] ?? [],
        request: requests[index] ?? [],
        instructions: replay.instructions,
      }),
    );
  }
  return steps;
}

export interface Bill {
  prompt: number;
  cached: number;
  /** Uncached tokens of requests that follow a cache break (the prefix changed), for the notes. */
  billed: number[];
  overWindow: number;
  breaks: number;
}

/** Bills a replay's requests: the unchanged prefix of each (instructions, tools, leading items) is cached. */
export function bill({
  replay,
  requests,
  counter,
  toolTokens,
  into,
}: {
  replay: Replay;
  requests: readonly (readonly Item[])[];
  counter: TokenCounter;
  toolTokens: number;
  into: Bill;
}): void {
  const head = countRequest({ counter, items: [], instructions: replay.instructions }) + toolTokens;
  let previous: readonly Item[] = [];
  for (const [index, request] of requests.entries()) {
    const total = head + counter.count(request);
    let shared = 0;
    let prefix = index === 0 ? 0 : head;
    while (
      index > 0 &&
      shared < previous.length &&
      shared < request.length &&
      previous[shared]?.id === request[shared]?.id
    ) {
      prefix += counter.countItem(request[shared] as Item);
      shared += 1;
    }
    if (index > 0 && shared < previous.length) into.breaks += 1;
    const cached = prefix >= CACHE_MINIMUM ? Math.floor(prefix / CACHE_STEP) * CACHE_STEP : 0;
    into.prompt += total;
    into.cached += cached;
    // A request shorter than the cache minimum cannot be written to the cache: its tokens are
    // billed at the input price even under the cache-write model.
    const writable = total >= CACHE_MINIMUM;
    PRICE_MODELS.forEach((price, position) => {
      into.billed[position] =
        (into.billed[position] ?? 0) +
        (total - cached) * (writable ? price.write : 1) +
        cached * price.read;
    });
    if (total > replay.window) into.overWindow += 1;
    previous = request;
  }
}

/**
 * What any strategy that sends every new item once, whole, must pay at least: each request's
 * new items at the input (or cache-write) price, plus the cheaper of the uncached instructions
 * and tools or the smallest cached prefix. It leaves out everything kept for retention.
 */
function floorBill({
  replay,
  counter,
  toolTokens,
  into,
}: {
  replay: Replay;
  counter: TokenCounter;
  toolTokens: number;
  into: number[];
}): void {
  const head = countRequest({ counter, items: [], instructions: replay.instructions }) + toolTokens;
  let previous = new Set<string>();
  for (const [index, request] of replay.requests.entries()) {
    const fresh = request.filter((item) => !previous.has(item.id));
    const tokens = fresh.reduce((sum, item) => sum + counter.countItem(item), 0);
    // Only a request that reaches the cache minimum is written to the cache, and the smallest
    // request that can hold these new items is them with the instructions and tools.
    const write = (price: (typeof PRICE_MODELS)[number]) =>
      head + tokens >= CACHE_MINIMUM ? price.write : 1;
    PRICE_MODELS.forEach((price, position) => {
      const context =
        index === 0 ? write(price) * head : Math.min(head, price.read * CACHE_MINIMUM);
      into[position] = (into[position] ?? 0) + write(price) * tokens + context;
    });
    previous = new Set(request.map((item) => item.id));
  }
}

/**
 * What an item is across replays: each replay through the loop gives items ids of its own, but
 * tool call ids come from the recording, and a changed copy (a placeholder, a clipped output)
 * keeps the call id of the item it stands for.
 */
function itemKey(item: Item): string {
  switch (item.kind) {
    case 'toolResult':
      return `result:${item.callId}`;
    case 'assistant':
      return `assistant:${(item.toolCalls ?? []).map((call) => call.id).join(',')}:${item.text ?? ''}`;
    case 'user':
      return `user:${JSON.stringify(item.content)}`;
    case 'context':
      return `context:${item.id}`;
  }
}

/** Tokens of the unmanaged loop's items that never appear, whole or as a changed copy, in any request a strategy sends. */
function neverSentTokens(
  replay: Replay,
  requests: readonly (readonly Item[])[],
  counter: TokenCounter,
): number {
  const sent = new Set<string>();
  for (const request of requests) {
    for (const item of request) sent.add(itemKey(item));
  }
  const logged = replay.requests.at(-1) ?? [];
  return logged
    .filter((item) => !sent.has(itemKey(item)))
    .reduce((sum, item) => sum + counter.countItem(item), 0);
}

/** Every bundled transcript replayed unmanaged, its window {@link WINDOW_SHARE} of its tokens. */
export async function loadReplays({
  counter,
  fixtures = loadTranscriptFixtures(),
}: {
  readonly counter: TokenCounter;
  readonly fixtures?: ReturnType<typeof loadTranscriptFixtures>;
}): Promise<Replay[]> {
  const replays: Replay[] = [];
  for (const fixture of fixtures) {
    const tokens = counter.count(fromChatMessages(fixture.messages));
    const window = Math.ceil(Math.round(tokens * 0.3) / 0.8);
    const { requests, tools } = await replayLoop({ messages: fixture.messages, counter });
    replays.push(replayAt({ name: fixture.file, window, tools, requests, counter }));
  }
  return replays;
}

export interface CostRetentionResult {
  readonly section: ReportSection;
  readonly svg: string;
}

/**
 * Cost against retention: every bundled transcript replayed in a window of 37.5% of its tokens,
 * each strategy's requests billed with a prefix cache under four price models, and the share of
 * the earlier work (goal, paths, error lines, identifiers, and apart from those the earlier
 * output lines) each request still shows; then the same for the long session at windows of
 * {@link LONG_WINDOWS} tokens.
 */
export async function costRetentionBench({
  counter,
}: {
  readonly counter: TokenCounter;
}): Promise<CostRetentionResult> {
  const fixtures = loadTranscriptFixtures();
  const messagesByName = new Map(fixtures.map((fixture) => [fixture.file, fixture.messages]));
  const replays = await loadReplays({ counter, fixtures });

  const rows: string[][] = [];
  const points: CostPoint[] = [];
  const results: { name: string; billed: number[]; overall: number; empty: number }[] = [];
  const floor: number[] = [];
  const keepingFloor: number[] = [];
  let loggedTokens = 0;
  for (const replay of replays) {
    const toolTokens = counter.countText(JSON.stringify(replay.tools));
    floorBill({ replay, counter, toolTokens, into: floor });
    keepingFloorBill({
      requests: replay.requests,
      instructions: replay.instructions,
      counter,
      toolTokens,
      prices: PRICE_MODELS,
      cacheMinimum: CACHE_MINIMUM,
      into: keepingFloor,
    });
    loggedTokens += counter.count(replay.requests.at(-1) ?? []);
  }
  for (const strategy of strategies(counter, (name) => messagesByName.get(name) ?? [])) {
    const total: Bill = { prompt: 0, cached: 0, billed: [], overWindow: 0, breaks: 0 };
    const retention: StepRetention[] = [];
    let neverSent = 0;
    let empty = 0;
    for (const replay of replays) {
      const requests = await strategy.requests(replay);
      neverSent += neverSentTokens(replay, requests, counter);
      empty += requests.filter((request) => request.length === 0).length;
      bill({
        replay,
        requests,
        counter,
        toolTokens: counter.countText(JSON.stringify(replay.tools)),
        into: total,
      });
      retention.push(...requestRetention(replay, requests));
    }
    const kept = averageRetention(retention);
    results.push({ name: strategy.name, billed: total.billed, overall: kept.overall, empty });
    points.push({
      name: strategy.name.replaceAll('*', '').replaceAll('`', ''),
      cost: total.billed[0] ?? 0,
      retention: kept.overall,
    });
    rows.push([
      strategy.name,
      strategy.how,
      ...figureCells(total, neverSent / loggedTokens, kept, keepingFloor),
    ]);
  }

  const peers = results.filter(
    (result) => !result.name.includes('loopkeeper') && result.name !== 'no management',
  );
  const notes = results
    .filter((result) => result.name.includes('loopkeeper'))
    .map((result) => `${result.name.replaceAll('*', '')}: ${standing(result, peers)}`);
  notes.push(...cheapestDefaultVerdict(results));
  const requests = replays.reduce((sum, replay) => sum + replay.requests.length, 0);
  // A request with no message at all is cheap, and the model can do nothing with it.
  const emptyNotes = results
    .filter((result) => result.empty > 0)
    .map(
      (result) =>
        `${result.name.replaceAll('*', '')}: ${formatCount(result.empty)} of the ${formatCount(requests)} requests hold no message at all, only the instructions and tools, and are billed as such.`,
    );
  const long = await longSessionTable(counter);
  const bullets = (list: readonly string[]) => list.map((note) => `- ${note}`).join('\n');
  const smallNotes = [
    ...notes,
    ...emptyNotes,
    `A floor for any strategy that sends every logged item once, whole, and nothing else besides the instructions and tools (or the smallest cached prefix): ${floor.map(formatCount).join(' / ')} billed under the four price models. "Logged tokens never sent" is the share of the unmanaged session's items that no request of the strategy shows, whole or changed: a strategy can bill less than that floor only by showing the model some of its own work cut, or not at all.`,
    `A floor for any strategy that also keeps all of the earlier work visible (the goal and every earlier path, error line and identifier, as its first 160 characters, beside each step's new items, cached as though it never changed, with no cache break and no kept item billed): ${keepingFloor.map(formatCount).join(' / ')}.`,
    "pi's row keeps only what pi's cut keeps: its summary is an LLM call, so its retention is a lower bound and its cost leaves out the summary's tokens; loopkeeper's rows include the extractive summary in every request that carries it, and no summarizer call is billed for either.",
    'No management and the AI SDK `pruneMessages` rows have no token budget: requests over the window would be refused by the provider; they are billed as if they fit.',
    '![Cost against retention](benchmarks-cost-retention.svg)',
  ];
  const longIntro = [
    `The bundled transcripts are 7k–14k tokens, so the windows above are small. Here the first ${formatCount(LONG_STEPS)} steps of the long session (the five transcripts replayed one after another with fresh ids, as in section 3: ${formatCount(long.toolCalls)} tool calls, ${formatCount(long.tokens)} tokens) are replayed through the real loop the same way, ${formatCount(long.requests)} requests, in windows of ${LONG_WINDOWS.map(formatCount).join(' and ')} tokens (\`contextWindowTrigger({window, outputReserve: 0})\`, every budget at the default line), with no management, the peers set up for agent transcripts, the plain head/tail cap and loopkeeper's default; the strategies, the billing and the columns are those of the table above.`,
    `Retention is measured at every request, not a sample, with the same facts, output lines and rules; to keep ${formatCount(long.requests)} requests over a history that grows to ${formatCount(long.loggedTokens)} tokens cheap, each distinct item text is searched once for every fact and line and the answer kept, and a request shows what one of its items, or the instructions, shows (the one difference from searching the whole request's text: a fact showing only across the boundary of two items is not counted).`,
    "The long session repeats the five recordings, so a later round's copy of an output prints the same paths, error lines and identifiers again: the fact columns credit a strategy with facts the newest copy repeats, which flatters the strategies that drop old outputs, and at 128k any strategy that keeps one round's worth of history sees every fact. Output lines are counted output by output, so they are not credited that way.",
  ].join(' ');
  const longNotes = [
    ...long.verdicts,
    `Mean request, in prompt tokens: ${long.meanRequests.join('; ')}. At 128k the default keeps up to its line's worth of earlier work in every request, where the AI SDK rows keep only the newest tool outputs whatever the window (their rows are the same at both windows).`,
    `Of the session's ${formatCount(long.outputs)} tool outputs, the plain head/tail cap (${DEFAULT_TOOL_OUTPUT_SHARE} × window at 4 characters a token) and loopkeeper's default cap (${DEFAULT_TOOL_OUTPUT_SHARE} × window, counted in tokens) cut: ${long.overCap.map((one) => `at ${formatCount(one.window)} (${formatCount(one.capTokens)} tokens), ${formatCount(one.characters)} and ${formatCount(one.tokens)}`).join('; ')}.${long.overCap.every((one) => one.characters === 0) ? ' So the plain cap bills as no management does.' : ''}`,
    `The keeping floor of the long session (defined as above): ${long.keepingFloor.map(formatCount).join(' / ')}. No management has no budget: its requests over the window would be refused by the provider, and are billed as if they fit.`,
  ];
  return {
    svg: costRetentionSvg({
      points,
      title: `Cost against retention: ${fixtures.length} transcripts, window at ${(WINDOW_SHARE * 100).toFixed(1)}% of each`,
    }),
    section: {
      title: '6. Cost against retention',
      intro: [
        `Each of the ${fixtures.length} bundled transcripts (\`test/fixtures/transcripts\`, MIT) is replayed through the real loop (\`ScriptedModel\` answering as recorded, replay tools, the quality harness's instructions and the replay tools' schemas on every request) in a context window of ${(WINDOW_SHARE * 100).toFixed(1)}% of its tokens (\`contextWindowTrigger({window, outputReserve: 0})\`; where the former default's 80% line fell at 30% of them), ${formatCount(requests)} requests in all; every strategy with a budget works to the default trigger's line, ${CONTEXT_WINDOW_DEFAULTS.percent}% of the window.`,
        "The unmanaged loop's requests are the history each peer manages, step by step; loopkeeper's rows are the loop's own requests with the compactor on.",
        `Billing: the prefix a request shares with the previous one (instructions, tools, then the leading items unchanged) is cached, from ${formatCount(CACHE_MINIMUM)} tokens in steps of ${CACHE_STEP}; the rest is billed at the input price, and under the last model written to the cache at 1.25×. A request shorter than the cache minimum is never written to the cache, so it is billed at the input price under every model. Figures are input tokens in uncached-token equivalents, summed over the transcripts.`,
        'Retention: at each request after the first, the goal (the first user message) and the share of the paths, error lines and identifiers of everything logged before that step (`workFactsOf` from `loopkeeper/testing`) still visible in the request, a fact visible when its first 160 characters are; each category is averaged over the steps that had such facts, and "kept" is the mean of the four.',
        `"Output lines" measures what no summarizer is built around: the lines the earlier tool outputs printed (each line whitespace-flattened, kept when it has at least ${OUTPUT_LINE_MIN_CHARACTERS} characters and a letter, once per output), and the share of them still visible whole (not by their first 160 characters: many outputs are one long line) in the output's own place (the output, or its changed copy: a placeholder, a clipped copy) or in an item that is no tool output (a summary, the agent's words) or the instructions; another output printing the same line does not count for it; the share is averaged over the steps like the others. loopkeeper's placeholders and summaries re-list facts (paths, error lines, identifiers), not output lines: once loopkeeper masks, clips or summarizes an output, the rest of its lines leave the request, and this column shows how much of what the tools printed each row still shows the model. It is reported beside "kept" and is not part of it: "kept" stays the mean of the four fact categories, the measure issue 34's target is defined on.`,
        'The figures are token counts, not timings: `npm run bench:cost -- --write` (which installs the peers in bench/ first) rewrites this section alone, and `bench/suite/cost-retention-sweep.ts` measures other loopkeeper settings the same way.',
      ].join(' '),
      body: [
        markdownTable({
          header: ['strategy', 'how', ...FIGURE_COLUMNS],
          rows,
          right: [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17],
        }),
        bullets(smallNotes),
        `### Windows of realistic size: the long session`,
        longIntro,
        long.table,
        bullets(longNotes),
      ].join('\n\n'),
    },
  };
}

/** The columns both tables give for each strategy, after its name (and its window or how). */
const FIGURE_COLUMNS = [
  'prompt tokens',
  'cached',
  ...PRICE_MODELS.map((price) => `billed, ${price.name}`),
  'cache breaks',
  'requests over the window',
  'logged tokens never sent',
  'goal',
  'paths',
  'error lines',
  'identifiers',
  'output lines (not in kept)',
  'kept',
  'billed ÷ keeping floor (each price model)',
];

/**
 * The cells of FIGURE_COLUMNS for one strategy: its bill, the share of the logged tokens it
 * never sent, what it kept and its bill against the keeping floor under each price model.
 */
function figureCells(
  total: Bill,
  neverSentShare: number,
  kept: ReturnType<typeof averageRetention>,
  keepingFloor: readonly number[],
): string[] {
  return [
    formatCount(total.prompt),
    formatPercent(total.cached / total.prompt),
    ...total.billed.map(formatCount),
    formatCount(total.breaks),
    formatCount(total.overWindow),
    formatPercent(neverSentShare),
    formatPercent(kept.goal),
    formatPercent(kept.paths),
    formatPercent(kept.errorLines),
    formatPercent(kept.identifiers),
    formatPercent(kept.outputLines),
    `**${formatPercent(kept.overall)}**`,
    total.billed
      .map((billed, index) => formatRatio(billed / (keepingFloor[index] ?? Number.NaN)))
      .join(' / '),
  ];
}

/** Steps of the long session replayed at realistic windows: the first 500, as in section 3. */
export const LONG_STEPS = 500;
/** Realistic context windows for the long session, in tokens. */
export const LONG_WINDOWS = [32_000, 128_000] as const;
/** The rows replayed on the long session: the peers that matter, the baseline and the default. */
const LONG_STRATEGIES = [
  'no management',
  'LangChain `trimMessages`, for agent transcripts',
  'plain head/tail cap',
  'AI SDK `pruneMessages`, last 2',
  'AI SDK `pruneMessages`, last 10',
  "pi's cut",
  '**loopkeeper** default',
];
const LONG_NAME = 'long session';

/**
 * The first {@link LONG_STEPS} steps of the long session (bench/suite/long-session.ts) replayed
 * unmanaged through the real loop once, and set in each of {@link LONG_WINDOWS}.
 */
async function loadLongReplays(counter: TokenCounter) {
  const session = buildLongSession({ counter, toolCalls: LONG_STEPS });
  const steps = session.steps.slice(0, LONG_STEPS);
  const last = steps.at(-1);
  if (steps.length < LONG_STEPS || last === undefined) {
    throw new Error(`bench: the long session has fewer than ${LONG_STEPS} steps`);
  }
  const messages = session.messages.slice(0, last.end);
  const { requests, tools } = await replayLoop({ messages, counter });
  const replays: Replay[] = LONG_WINDOWS.map((window) =>
    replayAt({ name: LONG_NAME, window, tools, requests, counter }),
  );
  return { messages, replays, toolCalls: last.toolCallsSoFar, tokens: last.tokensSoFar };
}

/**
 * The same strategies (those of {@link LONG_STRATEGIES}) over the long session at windows of
 * realistic size, billed the same way; retention is measured with {@link VisibilityIndex}, the
 * same facts and lines searched item by item, so hundreds of long requests stay cheap.
 */
async function longSessionTable(counter: TokenCounter) {
  const long = await loadLongReplays(counter);
  const index = new VisibilityIndex();
  const unmanaged = long.replays[0]?.requests ?? [];
  const { logged, steps } = earlierWorkOf(unmanaged, index);
  const toolTokens = counter.countText(JSON.stringify(long.replays[0]?.tools ?? []));
  const keepingFloor: number[] = [];
  keepingFloorBill({
    requests: unmanaged,
    instructions: QUALITY_INSTRUCTIONS,
    counter,
    toolTokens,
    prices: PRICE_MODELS,
    cacheMinimum: CACHE_MINIMUM,
    into: keepingFloor,
  });
  const loggedTokens = counter.count(unmanaged.at(-1) ?? []);
  // How many tool outputs each cap cuts at each window: the plain cap counts characters (4 a
  // token), loopkeeper's default cap tokens.
  const outputs = (unmanaged.at(-1) ?? []).filter((item) => item.kind === 'toolResult');
  const overCap = LONG_WINDOWS.map((window) => {
    const capTokens = Math.round(window * DEFAULT_TOOL_OUTPUT_SHARE);
    return {
      window,
      capTokens,
      characters: outputs.filter((item) => item.content.length > capTokens * 4).length,
      tokens: outputs.filter((item) => counter.countItem(item) > capTokens).length,
    };
  });
  const meanRequests: string[] = [];
  const rows: string[][] = [];
  const verdicts: string[] = [];
  const list = strategies(counter, () => long.messages).filter((strategy) =>
    LONG_STRATEGIES.includes(strategy.name),
  );
  for (const replay of long.replays) {
    const results: Standing[] = [];
    const prompts = new Map<string, number>();
    for (const strategy of list) {
      const requests = await strategy.requests(replay);
      const total: Bill = { prompt: 0, cached: 0, billed: [], overWindow: 0, breaks: 0 };
      bill({ replay, requests, counter, toolTokens, into: total });
      const retention: StepRetention[] = [];
      for (let position = 1; position < requests.length; position += 1) {
        const earlier = steps[position - 1];
        if (earlier === undefined) throw new Error('bench: a request with no unmanaged step');
        const shown = index.visible(replay.instructions, requests[position] ?? []);
        retention.push(indexedStepRetention(logged, earlier, shown));
      }
      const kept = averageRetention(retention);
      results.push({ name: strategy.name, billed: total.billed, overall: kept.overall });
      prompts.set(strategy.name, total.prompt);
      rows.push([
        formatCount(replay.window),
        strategy.name,
        ...figureCells(
          total,
          neverSentTokens(replay, requests, counter) / loggedTokens,
          kept,
          keepingFloor,
        ),
      ]);
    }
    const mean = (name: string) =>
      formatCount((prompts.get(name) ?? 0) / Math.max(1, replay.requests.length));
    meanRequests.push(
      `at ${formatCount(replay.window)}, ${list.map((strategy) => `${strategy.name.replaceAll('*', '')} ${mean(strategy.name)}`).join(', ')}`,
    );
    verdicts.push(
      ...cheapestDefaultVerdict(
        results,
        `on the long session at the ${formatCount(replay.window)}-token window`,
      ),
    );
  }
  return {
    requests: unmanaged.length,
    toolCalls: long.toolCalls,
    tokens: long.tokens,
    loggedTokens,
    outputs: outputs.length,
    overCap,
    meanRequests,
    keepingFloor,
    verdicts,
    table: markdownTable({
      header: ['window', 'strategy', ...FIGURE_COLUMNS],
      rows,
      right: [0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17],
    }),
  };
}

interface Standing {
  readonly name: string;
  readonly billed: readonly number[];
  readonly overall: number;
}

/** The rows that show the model every new tool output whole: issue 34's yardstick for the default. */
const SHOWS_EVERY_NEW_OUTPUT = [
  'no management',
  'AI SDK `pruneMessages`, last 2',
  'AI SDK `pruneMessages`, last 10',
  "pi's cut",
];

/**
 * Issue 34's target for the default setting: under every price model it bills no more than any
 * strategy that shows the model every new tool output, while keeping at least 95% of the earlier
 * work. Says by how much each price model misses, and which loopkeeper settings meet it.
 */
function cheapestDefaultVerdict(results: readonly Standing[], scope?: string): string[] {
  const yardstick = results.filter((result) => SHOWS_EVERY_NEW_OUTPUT.includes(result.name));
  const judge = (row: Standing) =>
    PRICE_MODELS.map((price, position) => {
      const cheapest = yardstick.reduce((best, peer) =>
        (peer.billed[position] ?? Infinity) < (best.billed[position] ?? Infinity) ? peer : best,
      );
      const billed = row.billed[position] ?? 0;
      const against = cheapest.billed[position] ?? 0;
      return { price: price.name, billed, against, peer: cheapest.name, met: billed <= against };
    });
  const meets = (row: Standing) => row.overall >= 0.95 && judge(row).every((one) => one.met);
  const loopkeeperRows = results.filter((result) => result.name.startsWith('**loopkeeper**'));
  const defaultRow = loopkeeperRows.find((result) => result.name === '**loopkeeper** default');
  if (defaultRow === undefined || yardstick.length === 0) return [];
  const misses = judge(defaultRow)
    .filter((one) => !one.met)
    .map(
      (one) =>
        `under ${one.price} ${formatCount(one.billed)} against ${formatCount(one.against)} (${one.peer}), ${formatPercent(one.billed / one.against - 1)} over`,
    );
  const others = loopkeeperRows
    .filter((row) => row !== defaultRow && meets(row))
    .map((row) => row.name.replaceAll('*', ''));
  const verdict = meets(defaultRow)
    ? 'met under all four price models'
    : `**missed**${defaultRow.overall < 0.95 ? `, keeps ${formatPercent(defaultRow.overall)}` : ''}${misses.length > 0 ? `: ${misses.join('; ')}` : ''}`;
  if (scope !== undefined) {
    const figures = judge(defaultRow)
      .map(
        (one) =>
          `under ${one.price} ${formatCount(one.billed)} against ${formatCount(one.against)} (${one.peer})`,
      )
      .join('; ');
    return [
      `Target (issue 34) ${scope}: ${verdict}${meets(defaultRow) ? `: ${figures}` : ''}. The default keeps ${formatPercent(defaultRow.overall)} of the earlier work.`,
    ];
  }
  return [
    `Target (issue 34): the default setting bills no more than any strategy that shows the model every new tool output (${SHOWS_EVERY_NEW_OUTPUT.join('; ')}) under every price model, keeping at least 95% of the earlier work: ${verdict}. ${others.length === 0 ? 'No other loopkeeper row meets it either.' : `Met by: ${others.join(', ')}.`} How the default was chosen: [compaction.md, "Why the default line is 55%"](compaction.md#why-the-default-line-is-55).`,
  ];
}

/**
 * Where one loopkeeper row stands against the managed peers under each price model: the price
 * models under which it bills no more than every peer while keeping more than each, and, for
 * the others, how far above the cheapest peer it bills.
 */
function standing(row: Standing, peers: readonly Standing[]): string {
  const keepsMore = peers.every((peer) => row.overall > peer.overall);
  const cheapestAt = (position: number) =>
    peers.reduce((best, peer) =>
      (peer.billed[position] ?? Infinity) < (best.billed[position] ?? Infinity) ? peer : best,
    );
  const wins: string[] = [];
  const losses: string[] = [];
  PRICE_MODELS.forEach((price, position) => {
    const cheapest = cheapestAt(position);
    const ratio = (row.billed[position] ?? 0) / (cheapest.billed[position] ?? 1);
    if (ratio <= 1) wins.push(`"${price.name}"`);
    else
      losses.push(`${formatRatio(ratio)} ${cheapest.name.replaceAll('*', '')} under ${price.name}`);
  });
  const kept = `keeps ${formatPercent(row.overall)} of the earlier work${keepsMore ? ', more than every peer' : ''}`;
  if (losses.length === 0)
    return `${kept}, and bills no more than every managed peer under all four price models.`;
  const where =
    wins.length === 0
      ? 'bills more than the cheapest managed peer under every price model'
      : `bills no more than every managed peer under the ${wins.join(' and ')} price models`;
  return `${kept}; ${where} (${losses.join('; ')}).`;
}
