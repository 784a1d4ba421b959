/**
 * Memory of many loops and the cost of resuming a long session. Every measurement runs in its
 * own child process (`node --expose-gc`, no tsx loader), so RSS and heap are the loops' and the
 * library's only. The children import the built package (`dist/`), so run `npm run build` first.
 *
 * - memory: N loops (`createAgentLoop`, a `ScriptedModel`, one shared `MemorySessionStore`),
 *   each started and run through one `runTurn`, all kept alive; then three GCs; RSS and heap.
 *   One more row, informative only, waits 10 s after the exchanges before the same GCs.
 * - resume: a FileSessionStore log of 100k items (25k runs of user, tool call, tool result,
 *   answer); a fresh process opens it as a resumed loop (`loop.session.open()`, then
 *   `store.openSession()`, which opens the log for writing as the first append would).
 *
 * Run: npx tsx bench/memory-resume.bench.ts [--root <checkout>] [--loops 1000] [--samples 5]
 * `--root` measures another checkout's `dist/` (e.g. a worktree of the base commit).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const HOME = resolve(import.meta.dirname, '..');
const { values } = await import('node:util').then(({ parseArgs }) =>
  parseArgs({
    options: {
      root: { type: 'string', default: HOME },
      loops: { type: 'string', default: '1000' },
      samples: { type: 'string', default: '5' },
      items: { type: 'string', default: '100000' },
    },
  }),
);
const root = resolve(values.root);
// Where the figures came from, without the machine's own paths: this checkout, or the other one
// relative to it.
const checkout = root === HOME ? 'this one' : `\`${relative(HOME, root) || root}\``;
const LOOPS = Number(values.loops);
const SAMPLES = Number(values.samples);
const ITEMS = Number(values.items);
const entry = pathToFileURL(join(root, 'dist/src/index.js')).href;
const testing = pathToFileURL(join(root, 'dist/src/testing/index.js')).href;

/** Runs `code` (an ES module) in a fresh `node --expose-gc` and parses the JSON it prints. */
function child<T>(code: string): T {
  const output = execFileSync(
    process.execPath,
    ['--expose-gc', '--input-type=module', '-e', code],
    {
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    },
  );
  return JSON.parse(output.trim().split('\n').at(-1) ?? 'null') as T;
}

interface MemorySample {
  readonly rss: number;
  readonly heapUsed: number;
  /** V8's heap as committed (`heapTotal`): what is used plus what V8 keeps for later. */
  readonly heapTotal: number;
  /** The young generation's resident pages (empty after the GCs, but committed). */
  readonly young: number;
}

/**
 * The end of every memory child: three GCs, then `process.memoryUsage()`; the young
 * generation's size is read after that, so loading `node:v8` does not count in the RSS.
 */
const MEASURE = `
  for (let round = 0; round < 3; round += 1) { globalThis.gc(); await new Promise((r) => setTimeout(r, 20)); }
  const { rss, heapUsed, heapTotal } = process.memoryUsage();
  const { getHeapSpaceStatistics } = await import('node:v8');
  const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.physical_space_size ?? 0;
`;

/**
 * N loops of one exchange each. Without a compactor a loop decides nothing on token counts and
 * loads no encoding for so short a history; with one (`compactor`), the first loop loads the
 * o200k encoding, which every later loop shares. `idleMs` waits that long before the GCs.
 */
function memoryOf(
  loops: number,
  { compactor = false, idleMs = 0 }: { compactor?: boolean; idleMs?: number } = {},
): MemorySample {
  return child<MemorySample>(`
    import { contextWindowTrigger, createAgentLoop, createCompactor, MemorySessionStore, runTurn } from ${JSON.stringify(entry)};
    import { ScriptedModel } from ${JSON.stringify(testing)};
    const store = new MemorySessionStore();
    const kept = [];
    for (let index = 0; index < ${loops}; index += 1) {
      const loop = createAgentLoop({
        model: new ScriptedModel({ turns: [{ text: 'An answer of a sentence or two.' }] }),
        store,
        sessionId: 'session-' + index,
        ${compactor ? 'compactor: createCompactor({ trigger: contextWindowTrigger({ window: 128_000 }) }),' : ''}
      });
      loop.start();
      const result = await runTurn(loop, 'A question from the user, about as long as one is.');
      if (result.outcome !== 'completed') throw new Error('turn ' + index + ': ' + result.outcome);
      kept.push(loop);
    }
    ${idleMs > 0 ? `await new Promise((r) => setTimeout(r, ${idleMs}));` : ''}
    ${MEASURE}
    console.log(JSON.stringify({ rss, heapUsed, heapTotal, young, kept: kept.length }));
  `);
}

async function writeLongLog(directory: string): Promise<string> {
  const sessionId = 'long';
  child(`
    import { FileSessionStore } from ${JSON.stringify(entry)};
    const store = new FileSessionStore({ directory: ${JSON.stringify(directory)} });
    const runs = ${Math.ceil(ITEMS / 4)};
    const text = (label, index) => label + ' ' + index + ' ' + 'lorem ipsum dolor sit amet '.repeat(6);
    for (let run = 0; run < runs; run += 500) {
      const events = [];
      for (let index = run; index < Math.min(runs, run + 500); index += 1) {
        const runId = 'long:run-' + index;
        events.push(
          { type: 'run-started', runId },
          { type: 'items-appended', runId, items: [{ kind: 'user', id: 'u' + index, content: text('question', index) }] },
          { type: 'items-appended', runId, items: [{ kind: 'assistant', id: 'a' + index, toolCalls: [{ id: 'c' + index, name: 'read', arguments: '{"path":"src/file-' + index + '.ts"}' }] }] },
          { type: 'items-appended', runId, items: [{ kind: 'toolResult', id: 't' + index, callId: 'c' + index, toolName: 'read', content: text('contents', index), isError: false }] },
          { type: 'items-appended', runId, items: [{ kind: 'assistant', id: 'f' + index, text: text('answer', index) }] },
          { type: 'run-finished', runId, outcome: 'completed', steps: 2 },
        );
      }
      await store.append(${JSON.stringify(sessionId)}, events);
    }
    await store.close();
    console.log('null');
  `);
  return sessionId;
}

interface ResumeSample {
  readonly openMs: number;
  readonly writerMs: number;
  readonly totalMs: number;
  readonly items: number;
  readonly heapUsed: number;
}

function resumeOf(directory: string, sessionId: string): ResumeSample {
  return child<ResumeSample>(`
    import { createAgentLoop, FileSessionStore } from ${JSON.stringify(entry)};
    import { ScriptedModel } from ${JSON.stringify(testing)};
    const store = new FileSessionStore({ directory: ${JSON.stringify(directory)} });
    const loop = createAgentLoop({ model: new ScriptedModel(), store, sessionId: ${JSON.stringify(sessionId)} });
    const started = performance.now();
    await loop.session.open();
    const opened = performance.now();
    await store.openSession(${JSON.stringify(sessionId)});
    const writer = performance.now();
    globalThis.gc();
    const { heapUsed } = process.memoryUsage();
    await store.close();
    console.log(JSON.stringify({
      openMs: opened - started, writerMs: writer - opened, totalMs: writer - started,
      items: loop.session.items.length, heapUsed,
    }));
  `);
}

function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** RSS and heap of a fresh process that imports `dist/` (or nothing) and runs no loop. */
function memoryBefore(importLibrary: boolean): MemorySample {
  return child<MemorySample>(`
    ${importLibrary ? `await import(${JSON.stringify(entry)}); await import(${JSON.stringify(testing)});` : ''}
    ${MEASURE}
    console.log(JSON.stringify({ rss, heapUsed, heapTotal, young }));
  `);
}

const bare = memoryBefore(false);
const imported = memoryBefore(true);
const base = memoryOf(1);
const baseCompacting = memoryOf(1, { compactor: true });
// The targets of issue 34: 1,000 idle loops within 100 MB of RSS, 10,000 within 600 MB.
const targets = new Map([
  [1_000, 100 * 2 ** 20],
  [10_000, 600 * 2 ** 20],
]);
const counts = [...new Set([LOOPS, ...targets.keys()])].sort((left, right) => left - right);
const many = counts.map((loops) => ({ loops, sample: memoryOf(loops) }));
const manyCompacting = { loops: 1_000, sample: memoryOf(1_000, { compactor: true }) };
// Not the target's measure: the same 1,000 loops, left idle for 10 s before the same GCs, which
// is when V8's memory reducer gives back the young generation the exchanges grew.
const IDLE_MS = 10_000;
const idle = memoryOf(1_000, { idleMs: IDLE_MS });
const columns = (sample: MemorySample): string =>
  [sample.rss, sample.heapUsed, sample.heapTotal, sample.young].map(mb).join(' | ');
const missed = many.find(
  ({ loops, sample }) => loops === 1_000 && sample.rss > (targets.get(loops) ?? Infinity),
);
/**
 * Why the 1,000-loop target is missed, as found on 2026-12-07 (issue 34): the figures are this
 * run's; the reading of them is that day's, from `v8.getHeapSpaceStatistics()`,
 * `--trace-gc` and heap snapshots of 1 and 201 loops.
 */
function why(loops: number, sample: MemorySample): string {
  const target = targets.get(loops) ?? 0;
  return [
    `Why ${loops.toLocaleString('en')} loops miss ${mb(target)} (found 2026-12-07):`,
    `${mb(sample.young)} of the ${mb(sample.rss)} is V8's young generation, empty after the GCs`,
    `but committed (${mb(base.young)} with one loop): V8 doubles it up to two 16 MB semi-spaces`,
    `once some megabytes have survived scavenges since the last doubling, and the import plus`,
    `the ${mb(sample.heapUsed - base.heapUsed)} the loops hold (${kb((sample.heapUsed - base.heapUsed) / (loops - 1))} each: the actor with its XState`,
    `system, snapshot and context, the session, the logged events, the scripted model's requests)`,
    `pass that early; V8 shrinks it only after a spell of little allocation, which the bench's`,
    `GCs right after the exchanges are not:`,
    idle.young < sample.young
      ? `left idle for ${IDLE_MS / 1000} s first, the same loops hold ${mb(idle.rss)} with a young generation of ${mb(idle.young)}.`
      : `in this run even ${IDLE_MS / 1000} s idle left it at ${mb(idle.young)} (${mb(idle.rss)} RSS).`,
  ].join(' ');
}
const verdict = (loops: number, rss: number): string => {
  const target = targets.get(loops);
  if (target === undefined) return '';
  return rss <= target ? `≤ ${mb(target)}: met` : `≤ ${mb(target)}: missed by ${mb(rss - target)}`;
};

const directory = await mkdtemp(join(tmpdir(), 'loopkeeper-resume-'));
let resume: ResumeSample[];
try {
  const sessionId = await writeLongLog(directory);
  resumeOf(directory, sessionId); // warm the page cache
  resume = Array.from({ length: SAMPLES }, () => resumeOf(directory, sessionId));
} finally {
  await rm(directory, { recursive: true, force: true });
}

console.log(`## Memory of idle loops and resume of a long log

Checkout: ${checkout}; Node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown'}).

Each row is one fresh \`node --expose-gc\` process importing \`dist/\`; figures after three GCs.

Heap committed is V8's \`heapTotal\`; the young generation is the part of it where new objects
start, resident though empty after the GCs.

| loops (one exchange each) | RSS | heap used | heap committed | young generation | RSS per loop | heap per loop | target |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |
| none: Node alone | ${columns(bare)} | | | |
| none: \`dist/\` imported | ${columns(imported)} | | | |
| 1 (no compactor: no encoding loaded for one exchange) | ${columns(base)} | | | |
${many
  .map(
    ({ loops, sample }) =>
      `| ${loops.toLocaleString('en')} | ${columns(sample)} | ${kb((sample.rss - base.rss) / (loops - 1))} | ${kb((sample.heapUsed - base.heapUsed) / (loops - 1))} | ${verdict(loops, sample.rss)} |`,
  )
  .join('\n')}
| 1 with a compactor (\`contextWindowTrigger({window: 128,000})\`: it loads the o200k encoding) | ${columns(baseCompacting)} | | | |
| 1,000 with a compactor (one encoding, shared) | ${columns(manyCompacting.sample)} | ${kb((manyCompacting.sample.rss - baseCompacting.rss) / 999)} | ${kb((manyCompacting.sample.heapUsed - baseCompacting.heapUsed) / 999)} | |
| 1,000, then ${IDLE_MS / 1000} s idle before the GCs (informative, not the target's measure) | ${columns(idle)} | ${kb((idle.rss - base.rss) / 999)} | ${kb((idle.heapUsed - base.heapUsed) / 999)} | |
${missed === undefined ? '' : `\n${why(missed.loops, missed.sample)}\n`}
Resume of a ${ITEMS.toLocaleString('en')}-item log (${resume[0]?.items ?? 0} items in the effective history),
median of ${SAMPLES} fresh processes: \`session.open()\` (read and project), then
\`store.openSession()\` (lock, open for writing).

| open | open for writing | total | heap after |
| ---: | ---: | ---: | ---: |
| ${median(resume.map((sample) => sample.openMs)).toFixed(0)} ms | ${median(resume.map((sample) => sample.writerMs)).toFixed(0)} ms | ${median(resume.map((sample) => sample.totalMs)).toFixed(0)} ms | ${mb(median(resume.map((sample) => sample.heapUsed)))} |
`);
