/**
 * `npm run bench:steps`: the whole agent step of loopkeeper and of the frameworks users would
 * pick instead, each with its own loop and an instant scripted model, on the same 2,000-call
 * session. Every contender runs in a fresh child process, one after the other.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { markdownTable } from '../markdown.js';
import { formatMilliseconds, median } from '../stats.js';
import { CONTENDERS, type ContenderName } from './contenders.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const { values } = parseArgs({
  options: {
    shape: { type: 'string', default: 'lean' },
    rotations: { type: 'string', default: '1' },
    only: { type: 'string' },
    'tool-calls': { type: 'string', default: '2000' },
    out: { type: 'string' },
  },
});
const names = (values.only?.split(',') ?? Object.keys(CONTENDERS)) as ContenderName[];
const rotations = Number(values.rotations);

interface ChildResult {
  readonly name: ContenderName;
  readonly steps: readonly number[];
  readonly calls: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly rssBefore: number;
  readonly peakRss: number;
}

/** The steps around ~200, ~1,000 and ~2,000: 40 consecutive steps centred on each. */
export const STEP_WINDOWS = [200, 1_000, 2_000] as const;
const HALF_WINDOW = 20;

/**
 * Where loopkeeper's step at ~200 goes, from CPU profiles of steps 150–250
 * (`bench/suite/steps/profile-window.ts`, three runs merged): written after the step-200
 * verdict while it is missed. Profile again and re-date it when the step changes.
 */
const STEP_200_WHY =
  "Why (profiled 2026-12-07, steps 150–250): about 40% of the step is XState's interpreter (per step three actors' done events, two eventless routings, and two copies of a 25-key context V8 keeps as a dictionary), about 15% the log append (stamping's JSON round trip and deep freeze; the projection, protocol tracker and artifact ledger), 6–9% garbage collection, 5% tools, 4–6% tokenizing the new items cold and 4% item checks.";

function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN;
}

function windowOf(steps: readonly number[], at: number): number[] {
  return steps.slice(Math.max(0, at - HALF_WINDOW), at + HALF_WINDOW);
}

const loads: number[] = [];
const results = new Map<ContenderName, ChildResult[]>();
const started = performance.now();
for (let rotation = 0; rotation < rotations; rotation += 1) {
  const order = names.map((_, index) => names[(index + rotation) % names.length] as ContenderName);
  for (const name of order) {
    loads.push(loadavg()[0] ?? Number.NaN);
    const child = spawnSync(
      process.execPath,
      [
        '--expose-gc',
        '--import',
        'tsx',
        'bench/suite/steps/child.ts',
        name,
        values.shape,
        values['tool-calls'],
      ],
      { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 },
    );
    if (child.status !== 0) throw new Error(`bench: ${name} failed: ${child.stderr}`);
    const result = JSON.parse(child.stdout.trim().split('\n').at(-1) ?? 'null') as ChildResult;
    results.set(name, [...(results.get(name) ?? []), result]);
    console.error(
      `${name}: ${result.calls} model calls, ${formatMilliseconds(result.wallMs)} wall`,
    );
  }
}
loads.push(loadavg()[0] ?? Number.NaN);

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const range = (values: readonly number[], format: (value: number) => string) => {
  const low = Math.min(...values);
  const high = Math.max(...values);
  return values.length === 1 || format(low) === format(high)
    ? format(low)
    : `${format(low)}–${format(high)}`;
};

/** Per contender, per window, the median over rotations of the window's median and p95. */
const figures = new Map(
  names.map((name) => {
    const runs = results.get(name) ?? [];
    return [
      name,
      {
        runs,
        windows: STEP_WINDOWS.map((at) => ({
          at,
          median: median(runs.map((run) => median(windowOf(run.steps, at)))),
          p95: median(runs.map((run) => percentile(windowOf(run.steps, at), 0.95))),
        })),
      },
    ];
  }),
);

const rows = names.map((name) => {
  const { runs, windows } = figures.get(name) as NonNullable<ReturnType<typeof figures.get>>;
  return [
    CONTENDERS[name].label,
    ...windows.map(
      (window) => `${formatMilliseconds(window.median)} / ${formatMilliseconds(window.p95)}`,
    ),
    range(
      runs.map((run) => run.cpuMs),
      formatMilliseconds,
    ),
    range(
      runs.map((run) => run.wallMs),
      formatMilliseconds,
    ),
    range(
      runs.map((run) => run.peakRss),
      mb,
    ),
    range(
      runs.map((run) => run.peakRss - run.rssBefore),
      mb,
    ),
    CONTENDERS[name].note,
  ];
});

const ours = figures.get('loopkeeper');
const verdicts = ours
  ? STEP_WINDOWS.map((at, index) => {
      const mine = ours.windows[index]?.median ?? Number.NaN;
      const peers = names
        .filter((name) => name !== 'loopkeeper')
        .map((name) => ({ name, value: figures.get(name)?.windows[index]?.median ?? Number.NaN }));
      const fastest = peers.reduce(
        (best, peer) => (peer.value < best.value ? peer : best),
        peers[0] ?? { name: 'loopkeeper' as ContenderName, value: Number.NaN },
      );
      return mine <= fastest.value
        ? `~step ${at.toLocaleString('en')}: met, ${formatMilliseconds(mine)} against the fastest peer's ${formatMilliseconds(fastest.value)} (${CONTENDERS[fastest.name].label}).`
        : `~step ${at.toLocaleString('en')}: **missed**, ${formatMilliseconds(mine)} against ${formatMilliseconds(fastest.value)} (${CONTENDERS[fastest.name].label}), ${(mine / fastest.value).toFixed(2)}× it.${at === 200 ? ` ${STEP_200_WHY}` : ''}`;
    })
  : [];

const first = results.get(names[0] as ContenderName)?.[0];
const markdown = `## Whole agent step (\`npm run bench:steps\`)

Each framework runs its own loop over the same session: the ${values.shape === 'lean' ? 'lean shape (every tool output cut to its first 100 characters, 200k tokens in all)' : 'long session (905k tokens)'} of ${Number(values['tool-calls']).toLocaleString('en')} tool calls, its ${first?.calls.toLocaleString('en') ?? '?'} model answers given by an instant scripted model, its recorded tool outputs given back by tools that look them up by call id, one user turn at a time (each framework's call per user turn, with the history so far). A step is the framework's own work from the model's answer to its next call of the model: running the tools, recording their results, building the next request as the framework hands it to its model (no contender serializes it for HTTP), plus, between user turns, finishing one call and starting the next. Every contender runs in a fresh process (\`node --expose-gc\`), ${rotations === 1 ? 'once' : `${rotations} times, in rotated order`}, one after the other on ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown'}, ${mb(totalmem())}); load average (1 min) while measuring: ${range(loads, (value) => value.toFixed(1))}. Times are in each window of 40 steps around step 200, 1,000 and 2,000: median / p95${rotations === 1 ? '' : ' (the median over rotations of each)'}. CPU and wall are the whole session's; peak RSS is the process's (\`maxRSS\`), and its rise over the RSS after the session was built.

${markdownTable({
  header: [
    'contender',
    '~step 200: median / p95',
    '~step 1,000',
    '~step 2,000',
    'CPU per session',
    'wall per session',
    'peak RSS',
    'peak RSS rise',
    'how',
  ],
  rows,
  right: [1, 2, 3, 4, 5, 6, 7],
})}

Target (issue 34): loopkeeper's whole step at or under every peer's, at every window.

${verdicts.map((line) => `- ${line}`).join('\n')}

Run time: ${formatMilliseconds(performance.now() - started)}.
`;
console.log(markdown);
if (values.out !== undefined) writeFileSync(values.out, markdown);
