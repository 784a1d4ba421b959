/**
 * Hot-path benchmark: (a) a full structural pass, `pipeline(dropReasoning(), pruneToolResults())`,
 * over the 2,000-tool-call long session with a warm counter (as in a running loop), and (b) the
 * per-step cost of counting and building the request at steps 200, 1,000 and 2,000 of the same
 * session, replayed with a fresh counter so each step tokenizes its new items cold.
 * Run with `npx tsx bench/hot-path.bench.ts [--runs N]`.
 */
import { cpus } from 'node:os';
import { pathToFileURL } from 'node:url';
import { pipeline } from '../src/compaction/pipeline.js';
import { dropReasoning } from '../src/compaction/strategies/drop-reasoning.js';
import { pruneToolResults } from '../src/compaction/strategies/prune-tool-results.js';
import { MemorySessionStore } from '../src/log/memory-store.js';
import { chatRequestBody } from '../src/model/chat-request.js';
import { LoopSession } from '../src/runtime/loop-session.js';
import { createTokenCounter } from '../src/tokens/create-token-counter.js';
import { windowBudget } from './suite/budget.js';
import { buildLongSession, type LongSession } from './suite/long-session.js';

const TOOL_CALLS = 2_000;
const WINDOW = 200_000;
const STEP_POINTS = [200, 1_000, 2_000] as const;
/** Steps on either side of a point whose timings are pooled into its median. */
const STEP_WINDOW = 10;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function time(run: () => unknown): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/**
 * Structural passes over the session with a counter that has counted every item, as in a
 * running loop. `first` is the first pass over fresh item objects (every placeholder written and
 * counted new), a median over `runs` sessions; `repeated` is the median of `runs` more passes
 * over the last session (what a pass skipped for too small a saving costs the next time).
 */
async function structuralPass(runs: number) {
  const counter = await createTokenCounter();
  const budget = windowBudget({ window: WINDOW });
  const structural = pipeline(dropReasoning(), pruneToolResults());
  const context = { tokens: counter, signal: new AbortController().signal };
  const first: number[] = [];
  let session: LongSession | undefined;
  let pass = async () => ({ metadata: {} as Record<string, unknown> });
  // One more session than timed: the first warms the JIT.
  for (let run = 0; run <= runs; run += 1) {
    const built = buildLongSession({ counter, toolCalls: TOOL_CALLS });
    const request = {
      transcript: built.items,
      reason: 'threshold' as const,
      budget: { maxTokens: budget.line, targetTokens: budget.target },
    };
    pass = () => structural.apply(request, context);
    const milliseconds = await time(pass);
    if (run > 0) first.push(milliseconds);
    session = built;
  }
  const result = await pass();
  const repeated: number[] = [];
  for (let run = 0; run < runs; run += 1) repeated.push(await time(pass));
  return {
    session: session as LongSession,
    first: median(first),
    repeated: median(repeated),
    tokensBefore: result.metadata['tokensBefore'],
    tokensAfter: result.metadata['tokensAfter'],
  };
}

/**
 * One replay of the session, step by step, into a `LoopSession` without compaction: appending
 * is not timed; the incremental token estimate and `chatRequestBody` are, as the loop runs them
 * before each model call. Fresh item objects and a fresh counter per replay, so nothing is warm.
 */
async function replaySteps(): Promise<{ count: number[]; build: number[] }> {
  const builder = await createTokenCounter();
  const long: LongSession = buildLongSession({ counter: builder, toolCalls: TOOL_CALLS });
  const counter = await createTokenCounter();
  const session = new LoopSession({
    store: new MemorySessionStore(),
    sessionId: 'hot-path',
    tokens: counter,
  });
  await session.open();
  const runId = 'run_hot_path';
  session.beginRun(runId);
  await session.appendForRun(runId, [
    { type: 'run-started', runId },
    { type: 'items-appended', runId, items: long.items.slice(0, long.prelude) },
  ]);
  const signal = new AbortController().signal;
  const count: number[] = [];
  const build: number[] = [];
  let body: unknown;
  for (const step of long.steps) {
    await session.appendForRun(runId, [
      { type: 'items-appended', runId, items: long.items.slice(step.start, step.end) },
    ]);
    const started = performance.now();
    session.estimateTokens(counter);
    const counted = performance.now();
    body = chatRequestBody({
      request: { transcript: session.items, tools: [], signal },
      model: 'bench',
      temperature: undefined,
    });
    const built = performance.now();
    count.push(counted - started);
    build.push(built - counted);
  }
  if (body === undefined) throw new Error('bench: no request was built');
  return { count, build };
}

function around(values: readonly number[], step: number): number[] {
  const end = Math.min(values.length, step + STEP_WINDOW);
  return values.slice(Math.max(0, end - 2 * STEP_WINDOW), end);
}

async function main() {
  const runsFlag = process.argv.indexOf('--runs');
  const runs = runsFlag === -1 ? 7 : Number(process.argv[runsFlag + 1]);
  console.log(`Node ${process.version}, ${cpus().length} CPUs, ${new Date().toISOString()}\n`);

  const pass = await structuralPass(runs);
  console.log(
    `(a) pipeline(dropReasoning(), pruneToolResults()), ${pass.session.items.length} items, ` +
      `${pass.session.toolCalls} tool calls, ${String(pass.tokensBefore)} → ${String(pass.tokensAfter)} tokens, ` +
      `median of ${runs}: first pass over fresh items ${pass.first.toFixed(1)} ms, ` +
      `repeated pass ${pass.repeated.toFixed(1)} ms\n`,
  );

  const replays = Math.max(3, Math.ceil(runs / 2));
  const results = [];
  for (let replay = 0; replay < replays; replay += 1) results.push(await replaySteps());
  const steps = results[0]?.count.length ?? 0;
  console.log(
    `(b) per step, fresh counter, ${steps} steps, ${replays} replays; median over steps ` +
      `[N-${STEP_WINDOW}, N+${STEP_WINDOW}) of every replay:`,
  );
  console.log('| step | estimateTokens µs | chatRequestBody µs | both µs |');
  console.log('|---:|---:|---:|---:|');
  for (const point of STEP_POINTS) {
    const at = Math.min(point, steps);
    const count = results.flatMap((result) => around(result.count, at));
    const build = results.flatMap((result) => around(result.build, at));
    const both = results.flatMap((result) =>
      around(
        result.count.map((value, index) => value + (result.build[index] ?? 0)),
        at,
      ),
    );
    const micro = (values: number[]) => (median(values) * 1000).toFixed(0);
    console.log(`| ${at} | ${micro(count)} | ${micro(build)} | ${micro(both)} |`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
