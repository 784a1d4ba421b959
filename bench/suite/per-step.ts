import { performance } from 'node:perf_hooks';
import type { BaseMessage } from '@langchain/core/messages';
import type { SessionEntry } from '@mariozechner/pi-coding-agent';
import type { TokenCounter } from '../../src/tokens/index.js';
import { windowBudget } from './budget.js';
import type { ChartSeries } from './chart.js';
import type { LongSession, SessionStep } from './long-session.js';
import { type ActorStep, runActorSession } from './loopkeeper-actor.js';
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
import { PiSession, piSettings, toPiEntries } from './peers/pi.js';
import {
  formatBytes,
  formatCount,
  formatMilliseconds,
  formatRatio,
  median,
  percentile,
  timed,
} from './stats.js';

const WINDOW = 200_000;

/** A peer's history, grown step by step, and the work it must do before each request. */
interface PeerContender {
  readonly name: string;
  readonly work: string;
  /** Adds the messages of items [start, end) to the history; not timed (a push). */
  grow(start: number, end: number): void;
  /** Called on steps that are not measured, for peers whose caches must still see every message. */
  catchUp?(): Promise<void>;
  /** Stateful peers run (and are timed) on every step, not only in the measured windows. */
  readonly everyStep?: boolean;
  /** The steps the peer works on (its real cadence); on the others its cost is 0. Default: all. */
  runsAt?(index: number): boolean;
  run(): unknown;
  /** A sentence for the notes, once the session has run. */
  describe?(): string;
}

export interface PerStepResult {
  readonly section: ReportSection;
  readonly chart: readonly ChartSeries[];
}

/** A run of consecutive session steps [first, last] where every contender is measured. */
interface StepWindow {
  readonly first: number;
  readonly last: number;
}

/** `count` windows of `size` steps, evenly spread from the start of the session to its end. */
function stepWindows({ steps, scale }: { steps: number; scale: BenchScale }): StepWindow[] {
  const size = Math.max(1, Math.min(scale.windowSteps, Math.floor(steps / scale.chartPoints)));
  return Array.from({ length: scale.chartPoints }, (_, index) => {
    const first = Math.round((index * (steps - size)) / (scale.chartPoints - 1));
    return { first, last: first + size - 1 };
  });
}

interface Summary {
  readonly median: number;
  readonly mean: number;
  readonly p95: number;
}

function summarize(values: readonly number[]): Summary {
  return {
    median: median(values),
    mean: values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length,
    p95: percentile(values, 0.95),
  };
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
  const modelForJson: ModelMessage[] = [];

  const allPiEntries = toPiEntries(items, session.itemTokens);
  const pi = new PiSession({
    settings: piSettings({ keepRecentTokens: budget.target, reserveTokens: WINDOW - budget.line }),
    contextWindow: WINDOW,
  });

  const allCore = toCoreMessages(items);
  const core: CoreMessage[] = [];
  const limiter = createMastraLimiter({ limit: budget.line });
  const mastraCalls: number[] = [];
  // Mastra's memory processors run when the agent recalls history: once per `generate` call,
  // that is once per user message; the tool steps inside that call do not run them again.
  const userAt = new Set(
    session.steps.flatMap((step, index) => (items[step.end - 1]?.kind === 'user' ? [index] : [])),
  );

  const allLangChain = toLangChainMessages(items);
  const langChain: BaseMessage[] = [];
  const tokenCounter = createLangChainTokenCounter();
  let counted = 0;

  return [
    {
      name: 'AI SDK `pruneMessages`',
      work: 'documented `prepareStep` options (reasoning and tool calls before the last 2 messages), every step',
      grow: growInto(model, allModel),
      run: () => pruneForNextStep(model),
    },
    {
      name: 'AI SDK `pruneMessages` + JSON',
      work: 'the same call, then `JSON.stringify` of the messages it returns: a lower bound of the request the AI SDK then sends (its conversion to provider messages is not included)',
      grow: growInto(modelForJson, allModel),
      run: () => JSON.stringify({ model: 'bench', messages: pruneForNextStep(modelForJson) }),
    },
    {
      name: 'pi after each turn',
      work: '`estimateContextTokens` + `shouldCompact`; when it fires, `prepareCompaction` and `buildSessionContext` (the LLM summary is not run)',
      everyStep: true,
      grow(start, end) {
        for (let index = start; index < end; index += 1) {
          pi.grow(allPiEntries[index] as SessionEntry, session.itemTokens[index] ?? 0);
        }
      },
      run: () => pi.afterTurn(),
      describe: () =>
        `pi compacted ${pi.compactions} time${pi.compactions === 1 ? '' : 's'} over the session.`,
    },
    {
      name: 'Mastra `TokenLimiter`',
      work: `newest messages within ${formatCount(budget.line)} tokens (js-tiktoken, no cache), once per user message as Mastra's memory runs it; 0 on other steps`,
      grow: growInto(core, allCore),
      runsAt: (index) => userAt.has(index),
      run: () => {
        const started = performance.now();
        const limited = limiter.process(core);
        mastraCalls.push(performance.now() - started);
        return limited;
      },
      describe: () =>
        `Mastra's \`TokenLimiter\` ran on ${formatCount(userAt.size)} of ${formatCount(session.steps.length)} steps (those ending on a user message); one call took ${formatMilliseconds(median(mastraCalls))} in the median over the measured windows.`,
    },
    {
      name: 'LangChain `trimMessages`',
      work: `newest messages within ${formatCount(budget.line)} tokens, counter memoized per message, before every model call`,
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

/** Warms the JIT on copies of the work, so the first measured steps are not charged for it. */
async function warmUp({
  session,
  counter,
  scale,
}: {
  session: LongSession;
  counter: TokenCounter;
  scale: BenchScale;
}) {
  await runActorSession({ items: session.items, window: WINDOW, steps: scale.warmUpSteps });
  const shortSteps = session.steps.slice(0, Math.min(scale.warmUpSteps, session.steps.length));
  const driver = await LoopkeeperDriver.start({
    counter,
    window: WINDOW,
    prelude: session.items.slice(0, session.prelude),
  });
  for (const step of shortSteps) await driver.step(stepItems(session, step));
  const budget = windowBudget({ window: WINDOW });
  for (const peer of peerContenders({ session, budget })) {
    peer.grow(0, session.prelude);
    // Every step of the warm-up prefix, then repeated runs on its end, until the peer has run
    // `warmUpRuns` times and for at least `warmUpMilliseconds`: µs-scale work needs thousands.
    for (const step of shortSteps) {
      peer.grow(step.start, step.end);
      await peer.run();
    }
    // A slow peer (tens of ms a run) stops at five times the time instead of the run count.
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    for (
      let run = 0;
      elapsed() < scale.warmUpMilliseconds ||
      (run < scale.warmUpRuns && elapsed() < 5 * scale.warmUpMilliseconds);
      run += 1
    ) {
      await peer.run();
    }
  }
}

/**
 * The actor's timed run, with the floor of each step taken from a second, identical replay:
 * the floor serializes a whole request body (up to a megabyte) per step, and measured inside
 * the timed run its garbage would be collected on the actor's time. The replay is
 * deterministic, so step i of both runs is the same request.
 */
async function actorWithFloor(session: LongSession) {
  const timed = await runActorSession({ items: session.items, window: WINDOW, floor: false });
  const floors = await runActorSession({ items: session.items, window: WINDOW });
  const paired = timed.steps.map((step, index) => {
    const beside = floors.steps[index];
    if (
      beside === undefined ||
      beside.toolCallsSoFar !== step.toolCallsSoFar ||
      beside.requestItems !== step.requestItems
    ) {
      throw new Error(`bench: the floor's replay differs from the timed one at step ${index}`);
    }
    return { ...step, floorTokenize: beside.floorTokenize, floorSerialize: beside.floorSerialize };
  });
  if (floors.steps.length !== timed.steps.length) {
    throw new Error("bench: the floor's replay has a different number of steps");
  }
  return { ...timed, steps: paired };
}

/**
 * Per-step overhead of a running session. loopkeeper is the real actor (`createAgentLoop`)
 * replaying the session, every step timed; its floor is measured on a second replay of the
 * same steps. The driver row is the same bookkeeping without XState, telemetry or tools. Each
 * peer's per-step work is timed in windows of consecutive steps spread along the session, at
 * its real cadence.
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
  await warmUp({ session, counter, scale });
  const windows = stepWindows({ steps: session.steps.length, scale });
  const inAnyWindow = new Set(
    windows.flatMap((window) =>
      Array.from({ length: window.last - window.first + 1 }, (_, offset) => window.first + offset),
    ),
  );
  const callsAt = (index: number) => (session.steps[index] as SessionStep).toolCallsSoFar;

  const actor = await actorWithFloor(session);
  // The actor's request after session step i is the first with steps[i].toolCallsSoFar calls made.
  const actorIn = (window: StepWindow): ActorStep[] =>
    actor.steps.filter(
      (step) =>
        step.toolCallsSoFar >= callsAt(window.first) && step.toolCallsSoFar <= callsAt(window.last),
    );

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
    return list;
  };
  const driverTimings = (await drive(true)).map((timing) => timing.total);

  const peers = peerContenders({ session, budget });
  const peerTimes = new Map<string, Map<number, number>>();
  for (const peer of peers) {
    const times = new Map<number, number>();
    peer.grow(0, session.prelude);
    for (const [index, step] of session.steps.entries()) {
      peer.grow(step.start, step.end);
      const works = peer.runsAt?.(index) ?? true;
      if (!inAnyWindow.has(index) && !peer.everyStep) {
        await peer.catchUp?.();
        continue;
      }
      times.set(index, works ? (await timed(() => peer.run())).milliseconds : 0);
    }
    peerTimes.set(peer.name, times);
  }

  const windowValues = (times: ReadonlyMap<number, number>, window: StepWindow) =>
    [...times].filter(([index]) => index >= window.first && index <= window.last).map(([, v]) => v);
  const driverMap = new Map(driverTimings.map((value, index) => [index, value]));
  const first = windows[0] as StepWindow;
  const last = windows.at(-1) as StepWindow;
  const measuredOnly = (times: ReadonlyMap<number, number>) =>
    windows.flatMap((window) => windowValues(times, window));

  interface Row {
    name: string;
    work: string;
    start: Summary;
    end: Summary;
    all: Summary;
  }
  const rows: Row[] = [];
  const actorAll = windows.flatMap(actorIn);
  const ms = (steps: readonly ActorStep[]) => steps.map((step) => step.milliseconds);
  const floorOf = (steps: readonly ActorStep[]) =>
    steps.map((step) => step.floorTokenize + step.floorSerialize);
  rows.push({
    name: '**loopkeeper** actor',
    work: '`createAgentLoop` + `ScriptedModel` + replay tools, fresh counter, telemetry on: log the answer, run and log the tools, budget check (compaction when it fires), request body as UTF-8 JSON (`chatRequestBytes`: each message serialized once, the body extended)',
    start: summarize(ms(actorIn(first))),
    end: summarize(ms(actorIn(last))),
    all: summarize(ms(actorAll)),
  });
  rows.push({
    name: 'floor',
    work: "exact cold tokenization of the step's new items + `JSON.stringify` of the request body",
    start: summarize(floorOf(actorIn(first))),
    end: summarize(floorOf(actorIn(last))),
    all: summarize(floorOf(actorAll)),
  });
  rows.push({
    name: 'loopkeeper driver (no XState, no telemetry)',
    work: 'the bookkeeping between two model calls driven directly: append, token total, trigger, `chatRequestBody` (not serialized); shared warm counter',
    start: summarize(windowValues(driverMap, first)),
    end: summarize(windowValues(driverMap, last)),
    all: summarize(measuredOnly(driverMap)),
  });
  for (const peer of peers) {
    const times = peerTimes.get(peer.name) as Map<number, number>;
    rows.push({
      name: peer.name,
      work: peer.work,
      start: summarize(windowValues(times, first)),
      end: summarize(windowValues(times, last)),
      all: summarize(measuredOnly(times)),
    });
  }
  const actorEnd = rows[0]?.end.median ?? Number.NaN;
  const mainTable = markdownTable({
    header: [
      'contender',
      'work per step',
      'start median',
      'end median',
      'end mean',
      'end p95',
      'all windows: median / mean / p95',
      'end median vs actor',
    ],
    rows: rows.map((row) => [
      row.name,
      row.work,
      formatMilliseconds(row.start.median),
      formatMilliseconds(row.end.median),
      formatMilliseconds(row.end.mean),
      formatMilliseconds(row.end.p95),
      `${formatMilliseconds(row.all.median)} / ${formatMilliseconds(row.all.mean)} / ${formatMilliseconds(row.all.p95)}`,
      formatRatio(row.end.median / actorEnd),
    ]),
    right: [2, 3, 4, 5, 6, 7],
  });

  const pruneTimes = peerTimes.get('AI SDK `pruneMessages`') as Map<number, number>;
  const pruneJsonTimes = peerTimes.get('AI SDK `pruneMessages` + JSON') as Map<number, number>;
  const alongTable = markdownTable({
    header: [
      'steps',
      'tool calls',
      'actor median / mean / p95',
      'floor median',
      'actor ÷ floor',
      '`pruneMessages` median',
      'actor ÷ `pruneMessages`',
      '`pruneMessages` + JSON median',
      'compactions in window',
    ],
    rows: windows.map((window) => {
      const steps = actorIn(window);
      const actorSummary = summarize(ms(steps));
      const floor = median(floorOf(steps));
      const prune = median(windowValues(pruneTimes, window));
      return [
        `${formatCount(window.first + 1)}–${formatCount(window.last + 1)}`,
        `${formatCount(callsAt(window.first))}–${formatCount(callsAt(window.last))}`,
        `${formatMilliseconds(actorSummary.median)} / ${formatMilliseconds(actorSummary.mean)} / ${formatMilliseconds(actorSummary.p95)}`,
        formatMilliseconds(floor),
        formatRatio(actorSummary.median / floor),
        formatMilliseconds(prune),
        formatRatio(actorSummary.median / prune),
        formatMilliseconds(median(windowValues(pruneJsonTimes, window))),
        formatCount(steps.filter((step) => step.compacted).length),
      ];
    }),
    right: [2, 3, 4, 5, 6, 7, 8],
  });

  const compactionSteps = actor.steps.filter((step) => step.compacted);
  const whole = summarize(ms(actor.steps));
  const x = (window: StepWindow) => callsAt(window.last);
  const chart: ChartSeries[] = [
    {
      name: 'loopkeeper',
      points: windows.map((window) => ({ x: x(window), y: median(ms(actorIn(window))) })),
    },
    {
      name: 'floor',
      points: windows.map((window) => ({ x: x(window), y: median(floorOf(actorIn(window))) })),
    },
    {
      name: 'loopkeeper driver',
      points: windows.map((window) => ({
        x: x(window),
        y: median(windowValues(driverMap, window)),
      })),
    },
    ...peers.map((peer) => ({
      name: peer.name.replaceAll('`', ''),
      points: windows.map((window) => ({
        x: x(window),
        // Medians of the steps the peer works on, so a per-turn cadence still shows its cost.
        y: median(
          windowValues(peerTimes.get(peer.name) as Map<number, number>, window).filter(
            (value) => value > 0,
          ),
        ),
      })),
    })),
  ];

  const lastStep = session.steps.at(-1) as SessionStep;
  const windowSize = first.last - first.first + 1;
  return {
    chart,
    section: {
      title: '1. Per-step overhead of a running session',
      intro: [
        `The lean session (${formatCount(session.steps.length)} steps, ${formatCount(session.toolCalls)} tool calls, ${formatCount(session.items.length)} items, ${formatCount(session.tokens)} tokens in the log) is replayed step by step for a ${formatCount(WINDOW)}-token window: trigger line ${formatCount(budget.line)}, target ${formatCount(budget.target)} tokens.`,
        `A step is one model answer and what follows it (tool results, a user turn) up to the next request. Every contender is measured in ${windows.length} windows of ${windowSize} consecutive steps spread from the start of the session to its end; "start" and "end" are the first and the last window, compaction steps included.`,
        "The loopkeeper actor is the real loop replaying the session; its time per step runs from the model's answer to the next request serialized. The floor is measured on a second, identical replay of the same steps (so the large strings it builds are not collected on the actor's time): a second fresh counter tokenizes only the items new in that request, and the request body is serialized from chat messages already built.",
      ].join(' '),
      body: `${mainTable}\n\nAlong the session (the loopkeeper actor against its floor and against AI SDK \`pruneMessages\`, window by window):\n\n${alongTable}`,
      notes: [
        `The actor ran ${formatCount(actor.steps.length + 1)} requests in ${formatMilliseconds(actor.steps.reduce((sum, step) => sum + step.milliseconds, 0))} of step time (${formatCount(actor.telemetryEvents)} telemetry events); over every step: median ${formatMilliseconds(whole.median)}, mean ${formatMilliseconds(whole.mean)}, p95 ${formatMilliseconds(whole.p95)}. It compacted ${formatCount(compactionSteps.length)} time${compactionSteps.length === 1 ? '' : 's'}${compactionSteps.length === 0 ? '' : `; those steps took ${formatMilliseconds(median(ms(compactionSteps)))} in the median and ${formatMilliseconds(Math.max(...ms(compactionSteps)))} at most, and count in the figures of their windows (and in the whole-session figures)`}. At the end the request held ${formatCount(actor.lastRequestItems)} items (${formatCount(actor.lastRequestTokens)} tokens) while the session replayed holds ${formatCount(lastStep.end)} items (${formatCount(session.tokens)} tokens; the replay adds a closing answer where a recording stops on tool calls and a \`Continue.\` turn where it goes on without a user message).`,
        `Memory with the finished actor still held (its session, the replay plan and the counters' caches): heap ${formatBytes(actor.heapBytes)} after full garbage collections, RSS ${formatBytes(actor.rssBytes)} for the whole bench process (the peers' libraries and the session copies included).`,
        "The actor's steps include the replay tools (a map lookup each) and XState; the scripted model's own work (its usage estimate, with a counter of its own) is not timed. The driver row uses the counter the session was built with, so every item is already counted: it shows the bookkeeping without tokenization.",
        "Peers keep the full history, as their frameworks do, and their call is timed after the step's messages were pushed (the push is not timed). No peer builds or serializes a provider request in these figures, except the `pruneMessages` + JSON row (a lower bound: the AI SDK's conversion to provider messages is left out); the loopkeeper actor's include it.",
        "The floor serializes the whole body with `JSON.stringify` every step, as a request built from scratch must; the actor's adapter uses `chatRequestBytes`, which keeps the previous request's bytes and appends only the new messages' JSON, so past a few hundred items the actor can come in under its floor. `openAIChatModel` still hands the body object to the openai SDK, which stringifies it whole.",
        ...peers.flatMap((peer) => (peer.describe === undefined ? [] : [peer.describe()])),
        `Warm-up before measuring: the actor and the driver over the first ${formatCount(scale.warmUpSteps)} steps; every peer over the same steps, then repeated runs for at least ${formatMilliseconds(scale.warmUpMilliseconds)} and ${formatCount(scale.warmUpRuns)} runs (a peer slower than that stops at ${formatMilliseconds(5 * scale.warmUpMilliseconds)}).`,
      ],
    },
  };
}
