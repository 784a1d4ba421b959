import { createCompactor } from '../../src/compaction/compactor.js';
import { pipeline } from '../../src/compaction/pipeline.js';
import { dropReasoning } from '../../src/compaction/strategies/drop-reasoning.js';
import { pruneToolResults } from '../../src/compaction/strategies/prune-tool-results.js';
import { extractiveSummarizer } from '../../src/compaction/summarizers/extractive.js';
import { contextWindowTrigger } from '../../src/compaction/triggers/context-window-trigger.js';
import { createTokenCounter } from '../../src/tokens/create-token-counter.js';
import type { TokenCounter } from '../../src/tokens/types.js';
import type { Item } from '../../src/transcript/types.js';
import { validateTranscript } from '../../src/transcript/validate-transcript.js';
import { BENCH_OUTPUT_RESERVE, type WindowBudget, windowBudget } from './budget.js';
import { LEAN_TOOL_OUTPUT_CHARACTERS, type LongSession } from './long-session.js';
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
import {
  formatCount,
  formatMilliseconds,
  formatPercent,
  formatRatio,
  median,
  timed,
} from './stats.js';

const WINDOW = 200_000;

interface PassContender {
  readonly name: string;
  readonly note: string;
  /**
   * The state one timed pass starts from (untimed), returning the pass itself, which returns
   * the items the model would see next. Most contenders start from the same state every time;
   * loopkeeper's cold and first-pass rows start each run from fresh items and a fresh counter.
   */
  prepare(): Promise<() => Promise<readonly Item[]>>;
  /** Whether this is the row the other times are compared to. */
  readonly reference?: boolean;
}

/** The same pass every run: whatever caches it keeps are warm after the warm-up. */
function steady(
  run: () => Promise<readonly Item[]>,
): () => Promise<() => Promise<readonly Item[]>> {
  return async () => run;
}

/** Copies of the items as new objects with the same ids: no cache keyed by item object knows them. */
function freshCopies(items: readonly Item[]): Item[] {
  return items.map((item) => structuredClone(item));
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
  const newCompactor = () =>
    createCompactor({
      trigger: contextWindowTrigger({ window: WINDOW, outputReserve: BENCH_OUTPUT_RESERVE }),
      backend: extractiveSummarizer(),
    });
  const compactor = newCompactor();
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

  const structuralPass = (transcript: readonly Item[], tokens: TokenCounter) => async () =>
    (await structural.apply({ ...request, transcript }, { tokens, signal })).transcript;

  return [
    {
      name: '**loopkeeper** structural tier, cold',
      note: '`pipeline(dropReasoning(), pruneToolResults())` on items no counter or cache has seen: every item tokenized, every placeholder written',
      prepare: async () => structuralPass(freshCopies(items), await createTokenCounter()),
    },
    {
      name: '**loopkeeper** structural tier, first pass in a loop',
      note: "the same, with the loop's counter and the compactor's budget check, which counted each item and wrote each tool output's placeholder as it arrived; no pass has run yet",
      prepare: async () => {
        const transcript = freshCopies(items);
        const tokens = await createTokenCounter();
        tokens.count(transcript);
        // The loop's budget check before each request: it writes each new tool output's
        // placeholder as the output arrives (here all at once, the same work).
        newCompactor().evaluate({ transcript, tokens });
        return structuralPass(transcript, tokens);
      },
    },
    {
      name: '**loopkeeper** structural tier, repeat pass in a loop',
      note: 'the same items again (a pruning skipped as too small, a compaction retried): the copies the first pass made are reused, their counts cached',
      prepare: steady(structuralPass(items, counter)),
    },
    {
      name: '**loopkeeper** `createCompactor`, first compaction in a loop',
      note: 'structural tier, then `summarizeOlder` with the offline `extractiveSummarizer` while above target, on items the loop counted and checked as they arrived; no compaction has run yet',
      prepare: async () => {
        const transcript = freshCopies(items);
        const tokens = await createTokenCounter();
        tokens.count(transcript);
        const fresh = newCompactor();
        fresh.evaluate({ transcript, tokens });
        return async () =>
          (await fresh.compact({ transcript, tokens, reason: 'threshold', signal })).transcript;
      },
    },
    {
      name: '**loopkeeper** `createCompactor`, repeat pass',
      note: 'the same compactor over the same items again (a compaction retried): placeholders, facts and counts cached',
      prepare: steady(
        async () =>
          (
            await compactor.compact({
              transcript: items,
              tokens: counter,
              reason: 'threshold',
              signal,
            })
          ).transcript,
      ),
    },
    {
      name: 'AI SDK `pruneMessages`',
      note: 'documented options; it has no token budget',
      reference: true,
      prepare: steady(async () => modelMessagesToItems(pruneForNextStep(model), items)),
    },
    {
      name: 'pi `prepareCompaction`',
      note: `keeps the newest ${formatCount(budget.target)} tokens (chars/4); the summary of the rest needs an LLM call and is not counted`,
      prepare: steady(async () =>
        piKeptItems({
          firstKeptEntryId: piPrepare({ entries, settings })?.firstKeptEntryId,
          items,
        }),
      ),
    },
    {
      name: 'Mastra `TokenLimiter`',
      note: 'newest messages within the target (its own js-tiktoken count)',
      prepare: steady(async () => coreMessagesToItems(limiter.process(core), coreIndex, items)),
    },
    {
      name: 'LangChain `trimMessages`',
      note: 'newest messages within the target, starting on a human message',
      prepare: steady(async () =>
        langChainMessagesToItems(
          await trimToBudget(langChain, { maxTokens: budget.target, tokenCounter }),
          byId,
        ),
      ),
    },
  ];
}

/**
 * Warm-up, then the median of many timed passes: runs until at least `minRuns` and about
 * `milliseconds` of work (at most `maxRuns`) for each, so µs-scale passes settle and 100 ms
 * ones still finish. Only the pass is timed, never `prepare`.
 */
async function measure(
  contender: PassContender,
  { minRuns, maxRuns, milliseconds }: { minRuns: number; maxRuns: number; milliseconds: number },
): Promise<{
  readonly result: readonly Item[];
  readonly milliseconds: number;
  readonly runs: number;
}> {
  const runFor = async (keep: boolean) => {
    const times: number[] = [];
    let result: readonly Item[] = [];
    let spent = 0;
    while (times.length < maxRuns && (times.length < minRuns || spent < milliseconds)) {
      const pass = await contender.prepare();
      const measured = await timed(pass);
      spent += measured.milliseconds;
      times.push(measured.milliseconds);
      result = measured.result;
    }
    return keep ? { result, milliseconds: median(times), runs: times.length } : undefined;
  };
  await runFor(false);
  return (await runFor(true)) as NonNullable<Awaited<ReturnType<typeof runFor>>>;
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
}): Promise<{ rows: string[][]; times: Map<string, number> }> {
  const before = counter.count(session.items);
  const measured: {
    contender: PassContender;
    result: readonly Item[];
    milliseconds: number;
    runs: number;
  }[] = [];
  for (const contender of contenders({ session, counter, budget })) {
    measured.push({ contender, ...(await measure(contender, passTiming(scale))) });
  }
  const reference = measured.find((entry) => entry.contender.reference)?.milliseconds ?? Number.NaN;
  const times = new Map(measured.map((entry) => [entry.contender.name, entry.milliseconds]));
  times.set('reference', reference);
  const rows = measured.map(({ contender, result, milliseconds, runs }) => {
    const after = counter.count(result);
    const problems = validateTranscript(result);
    return [
      contender.name,
      formatMilliseconds(milliseconds),
      formatRatio(milliseconds / reference),
      formatCount(runs),
      formatCount(after),
      `${formatCount(before - after)} (${formatPercent((before - after) / before)})`,
      after <= budget.target ? 'yes' : 'no',
      problems.length === 0 ? 'valid' : `**${problems.length} problems** (${problems[0]?.kind})`,
      contender.note,
    ];
  });
  return { rows, times };
}

/** The targets of issue 34 for the long session's passes, each met or missed by how much. */
function verdicts(times: ReadonlyMap<string, number>): string[] {
  const reference = times.get('reference') ?? Number.NaN;
  const timeOf = (prefix: string) =>
    [...times].find(([name]) => name.startsWith(prefix))?.[1] ?? Number.NaN;
  const ratio = (name: string, most: number) => {
    const value = timeOf(name) / reference;
    return value <= most
      ? `met, ${formatRatio(value)}`
      : `**missed**, ${formatRatio(value)}: ${formatRatio(value / most)} the target`;
  };
  const repeat = timeOf('**loopkeeper** `createCompactor`, repeat');
  return [
    `Structural pass over items already counted (first pass in a loop) at most 2× \`pruneMessages\`: ${ratio('**loopkeeper** structural tier, first pass', 2)}.`,
    `A full compaction's repeat pass under 10 ms: ${repeat < 10 ? `met, ${formatMilliseconds(repeat)}` : `**missed**, ${formatMilliseconds(repeat)} (${formatMilliseconds(repeat - 10)} over)`}.`,
    `A cold first pass over the unseen transcript at most 10× \`pruneMessages\`: ${ratio('**loopkeeper** structural tier, cold', 10)}; a cold pass must tokenize every tool output exactly (a placeholder states the output's exact size and a count decides what is pruned), which alone is the "Token counting" section's cold count of the whole session.`,
  ];
}

function passTiming(scale: BenchScale) {
  return scale.quick
    ? { minRuns: 3, maxRuns: 200, milliseconds: 200 }
    : { minRuns: Math.max(scale.repeats, 5), maxRuns: 1_000, milliseconds: 1_500 };
}

/** One structural compaction pass over the whole transcript, loopkeeper against each peer. */
export async function compactionPassBench({
  sessions,
  counter,
  scale,
}: {
  /** Each transcript with what it is (the replay cut at 200k tokens, the lean shape, ...). */
  readonly sessions: readonly { readonly label: string; readonly session: LongSession }[];
  readonly counter: TokenCounter;
  readonly scale: BenchScale;
}): Promise<ReportSection> {
  const budget = windowBudget({ window: WINDOW });
  const tables: string[] = [];
  let lastTimes: ReadonlyMap<string, number> = new Map();
  for (const { label, session } of sessions) {
    const { rows, times } = await passRows({ session, counter, scale, budget });
    lastTimes = times;
    tables.push(
      `**${label}: ${formatCount(session.tokens)} tokens, ${formatCount(session.toolCalls)} tool calls, ${formatCount(session.items.length)} items**\n\n${markdownTable(
        {
          header: [
            'contender',
            'time',
            'time / `pruneMessages`',
            'runs',
            'tokens after',
            'removed',
            'under target',
            'protocol',
            'what it does',
          ],
          rows,
          right: [1, 2, 3, 4, 5],
        },
      )}`,
    );
  }
  return {
    title: '2. One compaction pass over the whole transcript',
    intro: `Each contender compacts the whole transcript once, to the same budget: loopkeeper's \`contextWindowTrigger({window: ${formatCount(WINDOW)}, outputReserve: ${formatCount(BENCH_OUTPUT_RESERVE)}})\` gives a line of ${formatCount(budget.line)} and a target of ${formatCount(budget.target)} tokens; the peers get the target as their limit. Tokens are counted with loopkeeper's exact o200k counter on the result mapped back to items; "protocol" is \`validateTranscript\` on that result (orphan tool results, unanswered calls). Time is the median of many timed passes after as many warm-up passes (at least ${passTiming(scale).minRuns}, and about ${formatCount(passTiming(scale).milliseconds)} ms of passes, at most ${formatCount(passTiming(scale).maxRuns)}; "runs" says how many), every contender in the same process, one after the other; the ratio to \`pruneMessages\` is the figure to read, as the machine is shared and absolute times are noisy. loopkeeper's structural tier has three rows, by the state its caches are in. *Cold*: items no counter has seen (fresh copies and a fresh counter each run). *First pass in a loop*: the loop's counter has counted every item as it arrived and the compactor's budget check, which runs before every request, has written the placeholder of each tool output as it arrived (facts found and placeholder counted once per item, the work a step does for its new items; its cost is in the whole-step benchmark), but no pass has run over them yet. *Repeat pass*: the same items and counter after one pass: placeholders and stripped copies are made once per original item and reused (same id, count cached), as when a pruning was skipped for too small a saving or a compaction is retried. In a running loop each tool result's placeholder is written once, when the output arrives; later compactions see the copy, already pruned. \`createCompactor\` has the same two states: its first compaction in a loop (items counted and checked as they arrived, the summarizer's facts not yet found) and a repeat pass (each item's facts are found once, the summarizer keeps its latest summary and \`summarizeOlder\` its latest ledger and fitted trail, each for the same item objects, budget and counter, and the counter remembers the counts of its latest long texts). Tool outputs under \`pruneToolResults\`' \`minOutputTokens\` (2% of the target, at most 100 tokens) stay whole, since a placeholder of 20 to 30 tokens would save little of them: the lean shape's outputs are cut to ${LEAN_TOOL_OUTPUT_CHARACTERS} characters (about 30 tokens), so there the structural tier writes no placeholder, removes nothing, and its time is the time to decide that (one cached count per item), while \`pruneMessages\` drops every tool call before the last 2 messages whatever its size.`,
    body: `${tables.join('\n\n')}\n\nTargets of issue 34, on the last transcript above (the long session in a full run):\n\n${verdicts(
      lastTimes,
    )
      .map((line) => `- ${line}`)
      .join('\n')}`,
  };
}
