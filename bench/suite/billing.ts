import type { BaseMessage } from '@langchain/core/messages';
import type { TokenCounter } from '../../src/tokens/types.js';
import type { Item } from '../../src/transcript/types.js';
import { BENCH_OUTPUT_RESERVE, windowBudget } from './budget.js';
import type { LongSession } from './long-session.js';
import { LoopkeeperDriver } from './loopkeeper-driver.js';
import { markdownTable, type ReportSection } from './markdown.js';
import type { BenchScale } from './options.js';
import {
  type ModelMessage,
  modelMessagesToItems,
  pruneForNextStep,
  toModelMessages,
} from './peers/ai-sdk.js';
import {
  createLangChainTokenCounter,
  langChainMessagesToItems,
  toLangChainMessages,
  trimToBudget,
} from './peers/langchain.js';
import { formatCount, formatPercent, formatRatio } from './stats.js';

const WINDOW = 128_000;
const OUTPUT_RESERVE = 8_192;
const CACHED_PRICE = 0.1;
/** Providers cache prompt prefixes of at least 1,024 tokens, in steps of 128 (OpenAI's rule). */
const CACHE_MINIMUM = 1_024;
const CACHE_STEP = 128;

interface Strategy {
  readonly name: string;
  readonly how: string;
  /** Adds the items of one step and returns the request that would be sent next. */
  next(items: readonly Item[]): Promise<readonly Item[]>;
}

interface Bill {
  requests: number;
  promptTokens: number;
  cachedTokens: number;
  billed: number;
  cacheBreaks: number;
  largest: number;
  overflowAt?: number;
}

/** Bills one request against the previous one: the shared prefix is cached, the rest is not. */
function billRequest({
  bill,
  counter,
  previous,
  request,
}: {
  bill: Bill;
  counter: TokenCounter;
  previous: readonly Item[];
  request: readonly Item[];
}): void {
  let shared = 0;
  let prefixTokens = 0;
  while (
    shared < previous.length &&
    shared < request.length &&
    previous[shared]?.id === request[shared]?.id
  ) {
    prefixTokens += counter.countItem(request[shared] as Item);
    shared += 1;
  }
  const total = counter.count(request);
  const cached =
    prefixTokens >= CACHE_MINIMUM ? Math.floor(prefixTokens / CACHE_STEP) * CACHE_STEP : 0;
  bill.requests += 1;
  bill.promptTokens += total;
  bill.cachedTokens += cached;
  bill.billed += total - cached + cached * CACHED_PRICE;
  bill.largest = Math.max(bill.largest, total);
  // The previous request is no longer a prefix of this one: what was cached is lost.
  if (previous.length > 0 && shared < previous.length) bill.cacheBreaks += 1;
}

async function strategies({
  session,
  counter,
  line,
}: {
  session: LongSession;
  counter: TokenCounter;
  line: number;
}): Promise<Strategy[]> {
  const { items } = session;
  const prelude = items.slice(0, session.prelude);

  const all: Item[] = [...prelude];

  const allModel = toModelMessages(items);
  const model: ModelMessage[] = allModel.slice(0, session.prelude);
  let modelEnd = session.prelude;

  const allLangChain = toLangChainMessages(items);
  const langChain: BaseMessage[] = allLangChain.slice(0, session.prelude);
  let langChainEnd = session.prelude;
  const byId = new Map(items.map((item) => [item.id, item]));
  const tokenCounter = createLangChainTokenCounter();

  const driver = await LoopkeeperDriver.start({ counter, window: WINDOW, prelude });

  return [
    {
      name: 'no management',
      how: 'the whole history on every request, until it no longer fits',
      async next(stepItems) {
        for (const item of stepItems) all.push(item);
        return [...all];
      },
    },
    {
      name: 'LangChain `trimMessages` before each call',
      how: `sliding window: newest messages within ${formatCount(line)} tokens`,
      async next(stepItems) {
        for (let count = 0; count < stepItems.length; count += 1) {
          langChain.push(allLangChain[langChainEnd] as BaseMessage);
          langChainEnd += 1;
        }
        const trimmed = await trimToBudget(langChain, { maxTokens: line, tokenCounter });
        return langChainMessagesToItems(trimmed, byId);
      },
    },
    {
      name: 'AI SDK `pruneMessages` in `prepareStep`',
      how: 'reasoning and tool calls dropped before the last 2 messages, every step',
      async next(stepItems) {
        for (let count = 0; count < stepItems.length; count += 1) {
          model.push(allModel[modelEnd] as ModelMessage);
          modelEnd += 1;
        }
        return modelMessagesToItems(pruneForNextStep(model), items);
      },
    },
    {
      name: '**loopkeeper** trigger + hysteresis',
      how: `\`createCompactor\` + \`contextWindowTrigger({window: ${formatCount(WINDOW)}, outputReserve: ${formatCount(BENCH_OUTPUT_RESERVE)}})\`: compact at the line, down to the target`,
      async next(stepItems) {
        await driver.step(stepItems);
        return [...driver.requestItems];
      },
    },
  ];
}

/**
 * Billed tokens of a replay: each request costs its uncached tokens plus its cached prefix (the
 * part shared with the previous request) at a tenth of the price.
 */
export async function billingBench({
  session,
  counter,
  scale,
}: {
  readonly session: LongSession;
  readonly counter: TokenCounter;
  readonly scale: BenchScale;
}): Promise<ReportSection> {
  const { line, target } = windowBudget({ window: WINDOW });
  const limit = WINDOW - OUTPUT_RESERVE;
  const steps = session.steps.slice(0, scale.billingSteps);
  const rows: string[][] = [];
  const bills: { name: string; bill: Bill }[] = [];
  for (const strategy of await strategies({ session, counter, line })) {
    const bill: Bill = {
      requests: 0,
      promptTokens: 0,
      cachedTokens: 0,
      billed: 0,
      cacheBreaks: 0,
      largest: 0,
    };
    let previous: readonly Item[] = [];
    for (const [index, step] of steps.entries()) {
      const request = await strategy.next(session.items.slice(step.start, step.end));
      if (counter.count(request) > limit) {
        bill.overflowAt = index + 1;
        break;
      }
      billRequest({ bill, counter, previous, request });
      previous = request;
    }
    bills.push({ name: strategy.name, bill });
    rows.push([
      strategy.name,
      strategy.how,
      `${formatCount(bill.requests)}${bill.overflowAt === undefined ? '' : ` (overflow at step ${bill.overflowAt})`}`,
      formatCount(bill.promptTokens),
      formatPercent(bill.cachedTokens / bill.promptTokens),
      formatCount(bill.billed),
      formatCount(bill.billed / bill.requests),
      formatCount(bill.cacheBreaks),
      formatCount(bill.largest),
    ]);
  }
  const loopkeeper = bills.find((entry) => entry.name.includes('loopkeeper'))?.bill;
  const notes = bills
    .filter(
      (entry) =>
        entry.bill !== loopkeeper &&
        loopkeeper !== undefined &&
        entry.bill.overflowAt === undefined,
    )
    .map(
      (entry) =>
        `${entry.name.replaceAll('`', '')}: ${formatRatio(entry.bill.billed / (loopkeeper as Bill).billed)} loopkeeper's billed tokens over the same ${formatCount(entry.bill.requests)} requests.`,
    );
  notes.push(
    'The AI SDK row is the cheapest because `pruneMessages` with these options keeps only the tool calls and results of the last two messages, whatever the budget: every older tool output is gone from the next request. The table counts tokens; it does not judge what the model can still do with what it is sent.',
    'A cache break is a request whose previous request is not a prefix of it. loopkeeper breaks the cache only when it compacts; between compactions its history only grows at the end.',
  );
  return {
    title: '3. Billed tokens over a replay',
    intro: `The first ${formatCount(steps.length)} steps of the long session (${formatCount(steps.at(-1)?.toolCallsSoFar ?? 0)} tool calls, ${formatCount(steps.at(-1)?.tokensSoFar ?? 0)} tokens) replayed against a ${formatCount(WINDOW)}-token window; a request over ${formatCount(limit)} tokens (the window less an ${formatCount(OUTPUT_RESERVE)}-token output reserve) overflows. Each request is billed as its uncached tokens plus its cached prefix, the part identical to the previous request, at ${CACHED_PRICE} of the price (cached only from ${formatCount(CACHE_MINIMUM)} tokens, in steps of ${CACHE_STEP}, as OpenAI caches). Budgets: line ${formatCount(line)}, target ${formatCount(target)} tokens. "Billed" is in uncached-token equivalents.`,
    body: markdownTable({
      header: [
        'strategy',
        'how',
        'requests',
        'prompt tokens',
        'cached',
        'billed',
        'billed per request',
        'cache breaks',
        'largest request',
      ],
      rows,
      right: [2, 3, 4, 5, 6, 7, 8],
    }),
    notes,
  };
}
