import { performance } from 'node:perf_hooks';
import type { BaseMessage } from '@langchain/core/messages';
import type { SessionEntry } from '@mariozechner/pi-coding-agent';
import type { TokenCounter } from '../../src/tokens/types.js';
import { windowBudget } from './budget.js';
import type { ChartSeries } from './chart.js';
import type { LongSession, SessionStep } from './long-session.js';
import { LoopkeeperDriver, type StepTiming } from './loopkeeper-driver.js';
import { markdownTable, type ReportSection } from './markdown.js';
import type { BenchScale } from './options.js';
import { type ModelMessage, pruneForNextStep, toModelMessages } from './peers/ai-sdk.js';
import {
  createLangChainTokenCounter,
  toLangChainMessages,
  trimToBudget,
} from './peers/langchain.js';
import { type CoreMessage, createMastraLimiter, toCoreMessages } from './peers/mastra.js';
import {
  type PiMessage,
  piPrepare,
  piSettings,
  piThresholdCheck,
  toPiEntries,
} from './peers/pi.js';
import { formatCount, formatMilliseconds, formatRatio, median, timed } from './stats.js';

const WINDOW = 200_000;

/** A peer's history, grown step by step, and the work it must do before each request. */
interface PeerContender {
  readonly name: string;
  readonly work: string;
  /** Adds the messages of items [start, end) to the history; not timed (a push). */
  grow(start: number, end: number): void;
  /** Called on steps that are not measured, for peers whose caches must still see every message. */
  catchUp?(): Promise<void>;
  run(): unknown;
}

export interface PerStepResult {
  readonly section: ReportSection;
  readonly chart: readonly ChartSeries[];
}

/** Steps measured for every contender: a window at the start, one at the end, chart points between. */
function measuredSteps({ steps, scale }: { steps: number; scale: BenchScale }) {
  const window = Math.min(scale.windowSteps, Math.floor(steps / 4));
  const start = new Set(Array.from({ length: window }, (_, index) => index));
  const end = new Set(Array.from({ length: window }, (_, index) => steps - window + index));
  const points = Array.from({ length: scale.chartPoints }, (_, index) =>
    Math.round((index * (steps - 1)) / (scale.chartPoints - 1)),
  );
  return { start, end, points: new Set(points), pointList: points, window };
}

function peerContenders({
  session,
  budget,
}: {
  session: LongSession;
  budget: ReturnType<typeof windowBudget>;
}): PeerContender[] {
  const items = session.items;
  const growInto =
    <T>(target: T[], source: readonly T[]) =>
    (start: number, end: number) => {
      for (let index = start; index < end; index += 1) target.push(source[index] as T);
    };

  const allModel = toModelMessages(items);
  const model: ModelMessage[] = [];

  const allPiEntries = toPiEntries(items, session.itemTokens);
  const piMessages: PiMessage[] = [];
  const piEntries: SessionEntry[] = [];
  const settings = piSettings({
    keepRecentTokens: budget.target,
    reserveTokens: WINDOW - budget.line,
  });

  const allCore = toCoreMessages(items);
  const core: CoreMessage[] = [];
  const limiter = createMastraLimiter({ limit: budget.line });

  const allLangChain = toLangChainMessages(items);
  const langChain: BaseMessage[] = [];
  const tokenCounter = createLangChainTokenCounter();
  let counted = 0;

  return [
    {
      name: 'AI SDK `pruneMessages`',
      work: 'documented `prepareStep` options (reasoning and tool calls before the last 2 messages)',
      grow: growInto(model, allModel),
      run: () => pruneForNextStep(model),
    },
    {
      name: 'pi threshold check',
      work: '`estimateContextTokens` + `shouldCompact`, what pi runs after each turn',
      grow(start, end) {
        for (let index = start; index < end; index += 1) {
          const entry = allPiEntries[index] as SessionEntry;
          if (entry.type === 'message') piMessages.push(entry.message);
        }
      },
      run: () => piThresholdCheck({ messages: piMessages, contextWindow: WINDOW, settings }),
    },
    {
      name: 'pi `prepareCompaction`',
      work: 'cut point and messages to summarize, over the session entries',
      grow: growInto(piEntries, allPiEntries),
      run: () => piPrepare({ entries: piEntries, settings }),
    },
    {
      name: 'Mastra `TokenLimiter`',
      work: `newest messages within ${formatCount(budget.line)} tokens (js-tiktoken, no cache)`,
      grow: growInto(core, allCore),
      run: () => limiter.process(core),
    },
    {
      name: 'LangChain `trimMessages`',
      work: `newest messages within ${formatCount(budget.line)} tokens, counter memoized per message`,
      grow: growInto(langChain, allLangChain),
      // A step that is not measured still counts its new messages, as a running app would, so
      // the next measured step is not charged for a backlog.
      async catchUp() {
        tokenCounter(langChain.slice(counted));
        counted = langChain.length;
      },
      async run() {
        const trimmed = await trimToBudget(langChain, { maxTokens: budget.line, tokenCounter });
        counted = langChain.length;
        return trimmed;
      },
    },
  ];
}

function stepItems(session: LongSession, step: SessionStep) {
  return session.items.slice(step.start, step.end);
}

/** Warms the JIT on a copy of the work, so the first measured steps are not charged for it. */
async function warmUp({ session, counter }: { session: LongSession; counter: TokenCounter }) {
  const shortSteps = session.steps.slice(0, Math.min(300, session.steps.length));
  const driver = await LoopkeeperDriver.start({
    counter,
    window: WINDOW,
    prelude: session.items.slice(0, session.prelude),
  });
  for (const step of shortSteps) await driver.step(stepItems(session, step));
  const budget = windowBudget({ window: WINDOW });
  const end = shortSteps.at(-1)?.end ?? session.prelude;
  for (const peer of peerContenders({ session, budget })) {
    peer.grow(0, end);
    // Up to 20 runs or about a second each, whichever comes first: enough for the JIT to settle.
    const until = performance.now() + 1_000;
    for (let run = 0; run < 20 && performance.now() < until; run += 1) await peer.run();
  }
}

/**
 * Per-step overhead: the long session replayed step by step. loopkeeper is timed on every step
 * (its state carries from step to step); each peer's per-step work depends only on the history
 * so far, so it is timed on the start and end windows and at the chart points.
 */
export async function perStepBench({
  session,
  counter,
  scale,
}: {
  readonly session: LongSession;
  readonly counter: TokenCounter;
  readonly scale: BenchScale;
}): Promise<PerStepResult> {
  const budget = windowBudget({ window: WINDOW });
  await warmUp({ session, counter });
  const measured = measuredSteps({ steps: session.steps.length, scale });

  // Each contender gets a pass of its own, so one's garbage is not collected on another's time.
  const drive = async (compact: boolean) => {
    const driver = await LoopkeeperDriver.start({
      counter,
      window: WINDOW,
      prelude: session.items.slice(0, session.prelude),
      compact,
    });
    const list: StepTiming[] = [];
    for (const step of session.steps) list.push(await driver.step(stepItems(session, step)));
    return { driver, list };
  };
  const { driver: loopkeeper, list: timings } = await drive(true);
  const { list: growingTimings } = await drive(false);

  const peers = peerContenders({ session, budget });
  const peerTimes = new Map<string, Map<number, number>>();
  for (const peer of peers) {
    const times = new Map<number, number>();
    peer.grow(0, session.prelude);
    for (const [index, step] of session.steps.entries()) {
      peer.grow(step.start, step.end);
      const isPoint = measured.points.has(index);
      if (!isPoint && !measured.start.has(index) && !measured.end.has(index)) {
        await peer.catchUp?.();
        continue;
      }
      const runs: number[] = [];
      for (let run = 0; run < (isPoint ? scale.repeats : 1); run += 1) {
        runs.push((await timed(() => peer.run())).milliseconds);
      }
      times.set(index, median(runs));
    }
    peerTimes.set(peer.name, times);
  }

  const inWindow = (values: readonly number[], window: Set<number>) =>
    median(values.filter((_, index) => window.has(index)));
  const pick = (list: readonly StepTiming[], key: keyof Omit<StepTiming, 'compacted'>) =>
    list.map((timing) => timing[key]);
  const lkStart = inWindow(pick(timings, 'total'), measured.start);
  const lkEnd = inWindow(pick(timings, 'total'), measured.end);

  const rows: string[][] = [];
  const row = (name: string, work: string, start: number, end: number) =>
    rows.push([
      name,
      work,
      formatMilliseconds(start),
      formatMilliseconds(end),
      formatRatio(end / start),
      name.startsWith('↳') ? '—' : formatRatio(end / lkEnd),
    ]);
  row(
    '**loopkeeper**',
    'append, token total, trigger (compaction when it fires), request body',
    lkStart,
    lkEnd,
  );
  for (const [key, label] of [
    ['bookkeeping', 'log + projection append, protocol check, incremental token total'],
    ['trigger', '`contextWindowTrigger` check inside the compactor'],
    ['request', '`chatRequestBody` (the OpenAI adapter’s request builder)'],
  ] as const) {
    row(
      `↳ loopkeeper ${key}`,
      label,
      inWindow(pick(timings, key), measured.start),
      inWindow(pick(timings, key), measured.end),
    );
  }
  row(
    'loopkeeper without compaction',
    `same work, the effective history never compacted (grows to ${formatCount(session.tokens)} tokens)`,
    inWindow(pick(growingTimings, 'total'), measured.start),
    inWindow(pick(growingTimings, 'total'), measured.end),
  );
  for (const peer of peers) {
    const times = peerTimes.get(peer.name) as Map<number, number>;
    const windowMedian = (window: Set<number>) =>
      median([...times].filter(([index]) => window.has(index)).map(([, value]) => value));
    row(peer.name, peer.work, windowMedian(measured.start), windowMedian(measured.end));
  }

  const compactionSteps = timings.filter((timing) => timing.compacted);
  const x = (index: number) => (session.steps[index] as SessionStep).toolCallsSoFar;
  const near = (list: readonly StepTiming[], index: number) =>
    median(
      list
        .slice(Math.max(0, index - 5), index + 6)
        .filter((timing) => !timing.compacted)
        .map((timing) => timing.total),
    );
  const chart: ChartSeries[] = [
    {
      name: 'loopkeeper',
      points: measured.pointList.map((index) => ({ x: x(index), y: near(timings, index) })),
    },
    {
      name: 'loopkeeper without compaction',
      points: measured.pointList.map((index) => ({ x: x(index), y: near(growingTimings, index) })),
    },
    ...peers.map((peer) => ({
      name: peer.name.replaceAll('`', ''),
      points: measured.pointList.map((index) => ({
        x: x(index),
        y: peerTimes.get(peer.name)?.get(index) ?? Number.NaN,
      })),
    })),
  ];

  const lastStep = session.steps.at(-1) as SessionStep;
  return {
    chart,
    section: {
      title: '1. Per-step overhead of a running session',
      intro: [
        `The long session (${formatCount(session.steps.length)} steps, ${formatCount(session.toolCalls)} tool calls, ${formatCount(session.items.length)} items, ${formatCount(session.tokens)} tokens in the log) is replayed step by step for a ${formatCount(WINDOW)}-token window: trigger line ${formatCount(budget.line)}, target ${formatCount(budget.target)} tokens.`,
        `A step is one model answer and what follows it (tool results, a user turn) up to the next request. Medians over the first and the last ${measured.window} steps; "vs loopkeeper" is the end median divided by loopkeeper's.`,
      ].join(' '),
      body: markdownTable({
        header: [
          'contender',
          'work per step',
          'start (median)',
          'end (median)',
          'end ÷ start',
          'end vs loopkeeper',
        ],
        rows,
        right: [2, 3, 4, 5],
      }),
      notes: [
        `loopkeeper compacted ${compactionSteps.length} time${compactionSteps.length === 1 ? '' : 's'} during the session (structural tier, then the extractive summary when still above target); those steps took ${formatMilliseconds(median(compactionSteps.map((timing) => timing.total)))} in the median and ${formatMilliseconds(Math.max(0, ...compactionSteps.map((timing) => timing.total)))} at most, and are part of the step times above (a median does not land on them). At the end the effective history held ${formatCount(loopkeeper.requestItems.length)} items (${formatCount(counter.count(loopkeeper.requestItems))} tokens) while the log held ${formatCount(lastStep.end)} items (${formatCount(session.tokens)} tokens): loopkeeper's per-step cost follows the effective history, which compaction keeps under the window.`,
        "Peers keep the full history, as their frameworks do, and their per-step call is timed after the new messages were pushed (the push is not timed; loopkeeper's append, which writes the log, is).",
        "No peer builds a provider request in these figures; loopkeeper's include `chatRequestBody`.",
      ],
    },
  };
}
