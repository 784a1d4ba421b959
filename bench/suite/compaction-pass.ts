import { createCompactor } from '../../src/compaction/compactor.js';
import { pipeline } from '../../src/compaction/pipeline.js';
import { dropReasoning } from '../../src/compaction/strategies/drop-reasoning.js';
import { pruneToolResults } from '../../src/compaction/strategies/prune-tool-results.js';
import { extractiveSummarizer } from '../../src/compaction/summarizers/extractive.js';
import { contextWindowTrigger } from '../../src/compaction/triggers/context-window-trigger.js';
import type { TokenCounter } from '../../src/tokens/types.js';
import type { Item } from '../../src/transcript/types.js';
import { validateTranscript } from '../../src/transcript/validate-transcript.js';
import { BENCH_OUTPUT_RESERVE, type WindowBudget, windowBudget } from './budget.js';
import type { LongSession } from './long-session.js';
import { markdownTable, type ReportSection } from './markdown.js';
import type { BenchScale } from './options.js';
import { modelMessagesToItems, pruneForNextStep, toModelMessages } from './peers/ai-sdk.js';
import {
  createLangChainTokenCounter,
  langChainMessagesToItems,
  toLangChainMessages,
  trimToBudget,
} from './peers/langchain.js';
import { coreMessagesToItems, createMastraLimiter, toCoreMessages } from './peers/mastra.js';
import { piKeptItems, piPrepare, piSettings, toPiEntries } from './peers/pi.js';
import { formatCount, formatMilliseconds, formatPercent, timedMedian } from './stats.js';

const WINDOW = 200_000;

interface PassContender {
  readonly name: string;
  readonly note: string;
  /** One compaction pass; returns the items the model would see next. */
  run(): Promise<readonly Item[]>;
}

function contenders({
  session,
  counter,
  budget,
}: {
  session: LongSession;
  counter: TokenCounter;
  budget: WindowBudget;
}): PassContender[] {
  const { items } = session;
  const signal = new AbortController().signal;
  const request = {
    transcript: items,
    reason: 'threshold' as const,
    budget: { maxTokens: budget.line, targetTokens: budget.target },
  };
  const structural = pipeline(dropReasoning(), pruneToolResults());
  const compactor = createCompactor({
    trigger: contextWindowTrigger({ window: WINDOW, outputReserve: BENCH_OUTPUT_RESERVE }),
    backend: extractiveSummarizer(),
  });
  const model = toModelMessages(items);
  const entries = toPiEntries(items, session.itemTokens);
  const settings = piSettings({
    keepRecentTokens: budget.target,
    reserveTokens: WINDOW - budget.line,
  });
  const core = toCoreMessages(items);
  const coreIndex = new Map(core.map((message, index) => [message, index]));
  const limiter = createMastraLimiter({ limit: budget.target });
  const langChain = toLangChainMessages(items);
  const byId = new Map(items.map((item) => [item.id, item]));
  const tokenCounter = createLangChainTokenCounter();

  return [
    {
      name: '**loopkeeper** structural tier',
      note: '`pipeline(dropReasoning(), pruneToolResults())`: old tool output becomes a placeholder',
      run: async () => (await structural.apply(request, { tokens: counter, signal })).transcript,
    },
    {
      name: '**loopkeeper** `createCompactor`',
      note: 'structural tier, then `summarizeOlder` with the offline `extractiveSummarizer` while above target',
      run: async () =>
        (
          await compactor.compact({
            transcript: items,
            tokens: counter,
            reason: 'threshold',
            signal,
          })
        ).transcript,
    },
    {
      name: 'AI SDK `pruneMessages`',
      note: 'documented options; it has no token budget',
      run: async () => modelMessagesToItems(pruneForNextStep(model), items),
    },
    {
      name: 'pi `prepareCompaction`',
      note: `keeps the newest ${formatCount(budget.target)} tokens (chars/4); the summary of the rest needs an LLM call and is not counted`,
      run: async () =>
        piKeptItems({
          firstKeptEntryId: piPrepare({ entries, settings })?.firstKeptEntryId,
          items,
        }),
    },
    {
      name: 'Mastra `TokenLimiter`',
      note: 'newest messages within the target (its own js-tiktoken count)',
      run: async () => coreMessagesToItems(limiter.process(core), coreIndex, items),
    },
    {
      name: 'LangChain `trimMessages`',
      note: 'newest messages within the target, starting on a human message',
      run: async () =>
        langChainMessagesToItems(
          await trimToBudget(langChain, { maxTokens: budget.target, tokenCounter }),
          byId,
        ),
    },
  ];
}

async function passRows({
  session,
  counter,
  scale,
  budget,
}: {
  session: LongSession;
  counter: TokenCounter;
  scale: BenchScale;
  budget: WindowBudget;
}): Promise<string[][]> {
  const before = counter.count(session.items);
  const rows: string[][] = [];
  for (const contender of contenders({ session, counter, budget })) {
    // One untimed pass first: every cache a library keeps (loopkeeper's per-item counts,
    // the memoized LangChain counter) is warm, as it is in a running session.
    await contender.run();
    const { result, milliseconds } = await timedMedian(() => contender.run(), {
      repeats: scale.repeats,
    });
    const after = counter.count(result);
    const problems = validateTranscript(result);
    rows.push([
      contender.name,
      formatMilliseconds(milliseconds),
      formatCount(after),
      `${formatCount(before - after)} (${formatPercent((before - after) / before)})`,
      after <= budget.target ? 'yes' : 'no',
      problems.length === 0 ? 'valid' : `**${problems.length} problems** (${problems[0]?.kind})`,
      contender.note,
    ]);
  }
  return rows;
}

/** One structural compaction pass over the whole transcript, loopkeeper against each peer. */
export async function compactionPassBench({
  sessions,
  counter,
  scale,
}: {
  readonly sessions: readonly LongSession[];
  readonly counter: TokenCounter;
  readonly scale: BenchScale;
}): Promise<ReportSection> {
  const budget = windowBudget({ window: WINDOW });
  const tables: string[] = [];
  for (const session of sessions) {
    const rows = await passRows({ session, counter, scale, budget });
    tables.push(
      `**${formatCount(session.tokens)} tokens, ${formatCount(session.toolCalls)} tool calls, ${formatCount(session.items.length)} items**\n\n${markdownTable(
        {
          header: [
            'contender',
            'time',
            'tokens after',
            'removed',
            'under target',
            'protocol',
            'what it does',
          ],
          rows,
          right: [1, 2, 3],
        },
      )}`,
    );
  }
  return {
    title: '2. One compaction pass over the whole transcript',
    intro: `Each contender compacts the whole transcript once, to the same budget: loopkeeper's \`contextWindowTrigger({window: ${formatCount(WINDOW)}, outputReserve: ${formatCount(BENCH_OUTPUT_RESERVE)}})\` gives a line of ${formatCount(budget.line)} and a target of ${formatCount(budget.target)} tokens; the peers get the target as their limit. Tokens are counted with loopkeeper's exact o200k counter on the result mapped back to items; "protocol" is \`validateTranscript\` on that result (orphan tool results, unanswered calls). Time is the median of ${scale.repeats} runs after one warm-up run.`,
    body: tables.join('\n\n'),
  };
}
