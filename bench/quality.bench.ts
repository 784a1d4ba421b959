/**
 * Compaction quality: every bundled transcript replayed through the real loop with the default
 * compactor, at trigger lines holding 30% and 15% of the transcript, once per summary backend.
 * Reports what the work kept (goal, paths, error lines, identifiers of the dropped part still
 * visible to the model), how often each tier ran, and whether every turn completed.
 *
 * `npx tsx bench/quality.bench.ts` prints the tables; `--write` also writes docs/quality.md.
 * The extractive backend is the offline reference; `none` (no backend: structural tier and
 * emergency prune only) shows what the summary tier buys. With `OPENAI_API_KEY` set (and
 * optionally `LOOPKEEPER_QUALITY_MODEL`, default gpt-4o-mini) an `openai` backend runs too.
 *
 * `--ai-sdk` replays through the AI SDK's loop instead (`generateText` with its mock model and
 * `compactionPrepareStep` from `loopkeeper/ai-sdk`; bench/suite/ai-sdk-quality.ts) and prints
 * the same tables; it does not write docs/quality.md.
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { extractiveSummarizer } from '../src/compaction/summarizers/extractive.js';
import { openAISummarizer } from '../src/compaction/summarizers/openai.js';
import type { CompactionBackend } from '../src/compaction/types.js';
import {
  type CompactionQualityReport,
  type FactRecall,
  measureCompactionQuality,
} from '../src/testing/quality/measure-compaction-quality.js';
import { createTokenCounter } from '../src/tokens/create-token-counter.js';
import { fromChatMessages } from '../src/transcript/from-chat-messages.js';
import { loadTranscriptFixtures } from '../test/support/transcripts.js';

const SHARES = [0.3, 0.15] as const;

interface BackendCase {
  readonly name: string;
  readonly backend: CompactionBackend | undefined;
  readonly about: string;
}

function backendCases(): BackendCase[] {
  const cases: BackendCase[] = [
    {
      name: 'extractive',
      backend: extractiveSummarizer(),
      about: 'offline, deterministic: the reference',
    },
    {
      name: 'none',
      backend: undefined,
      about: 'no summary backend: the structural tier and the emergency prune only',
    },
  ];
  const apiKey = process.env['OPENAI_API_KEY'];
  if (apiKey !== undefined && apiKey !== '') {
    const model = process.env['LOOPKEEPER_QUALITY_MODEL'] ?? 'gpt-4o-mini';
    cases.push({
      name: `openai (${model})`,
      backend: openAISummarizer({ apiKey, model }),
      about: `openAISummarizer with ${model}`,
    });
  }
  return cases;
}

function share(recall: FactRecall): string {
  return recall.dropped === 0 ? '–' : `${recall.visible}/${recall.dropped}`;
}

function ratio(visible: number, dropped: number): number {
  return dropped === 0 ? 1 : visible / dropped;
}

function percent(value: number): string {
  return `${(value * 100).toFixed(0)}%`;
}

function sum(
  reports: readonly CompactionQualityReport[],
  pick: (r: CompactionQualityReport) => FactRecall,
) {
  return reports.reduce(
    (total, report) => ({
      dropped: total.dropped + pick(report).dropped,
      visible: total.visible + pick(report).visible,
    }),
    { dropped: 0, visible: 0 },
  );
}

function table(reports: readonly CompactionQualityReport[]): string {
  const header =
    '| transcript | line (share) | turns completed | requests | compactions (summary) | emergency prunes | reduction | goal kept | paths | error lines | identifiers | invalid requests |';
  const rule = `|${' --- |'.repeat(12)}`;
  const rows = reports.map((report) => {
    const lineShare = report.line / report.transcriptTokens;
    return `| ${report.name} | ${report.line} (${percent(lineShare)}) | ${report.turnsCompleted}/${report.turns} | ${report.requests} | ${report.compactions} (${report.summaries}) | ${report.emergencyPrunes} | ${percent(report.reduction)} | ${report.goalKept ? 'yes' : 'no'} | ${share(report.paths)} | ${share(report.errorLines)} | ${share(report.identifiers)} | ${report.invalidRequests} |`;
  });
  return [header, rule, ...rows].join('\n');
}

/** The bar, checked over every replay of one backend. */
function verdict(reports: readonly CompactionQualityReport[]): string {
  const paths = sum(reports, (report) => report.paths);
  const errors = sum(reports, (report) => report.errorLines);
  const ids = sum(reports, (report) => report.identifiers);
  const pathsAndErrors = ratio(paths.visible + errors.visible, paths.dropped + errors.dropped);
  const compactions = reports.reduce((total, report) => total + report.compactions, 0);
  const prunes = reports.reduce((total, report) => total + report.emergencyPrunes, 0);
  const worstPruneShare = Math.max(
    ...reports.map((report) =>
      report.compactions === 0 ? 0 : report.emergencyPrunes / report.compactions,
    ),
  );
  const checks = [
    [`goal kept in every replay`, reports.every((report) => report.goalKept)],
    [
      `paths and error lines still visible: ${percent(pathsAndErrors)} (${paths.visible + errors.visible}/${paths.dropped + errors.dropped}; bar 95%)`,
      pathsAndErrors >= 0.95,
    ],
    [
      `identifiers still visible: ${percent(ratio(ids.visible, ids.dropped))} (${ids.visible}/${ids.dropped}; bar 90%)`,
      ratio(ids.visible, ids.dropped) >= 0.9,
    ],
    [
      `emergency prunes: ${prunes} of ${compactions} compactions, at most ${percent(worstPruneShare)} in one replay (bar 25%)`,
      worstPruneShare <= 0.25,
    ],
    ['every turn completed', reports.every((report) => report.turnsCompleted === report.turns)],
    ['every request protocol-valid', reports.every((report) => report.invalidRequests === 0)],
  ] as const;
  return checks.map(([text, ok]) => `- ${ok ? 'met' : 'NOT met'}: ${text}`).join('\n');
}

const throughAiSdk = process.argv.includes('--ai-sdk');
// The AI SDK driver imports `ai`; a computed specifier keeps it out of the default run.
const aiSdkDriver: {
  measureAiSdkCompactionQuality: typeof measureCompactionQuality;
} | null = throughAiSdk
  ? await import(new URL('./suite/ai-sdk-quality.ts', import.meta.url).href)
  : null;
const measure = aiSdkDriver?.measureAiSdkCompactionQuality ?? measureCompactionQuality;
const tokens = await createTokenCounter();
const fixtures = loadTranscriptFixtures();
const started = performance.now();
const sections: string[] = [];
for (const { name, backend, about } of backendCases()) {
  const reports: CompactionQualityReport[] = [];
  for (const lineShare of SHARES) {
    for (const fixture of fixtures) {
      const transcriptTokens = tokens.count(fromChatMessages(fixture.messages));
      reports.push(
        await measure({
          name: fixture.file.replace(/\.json$/, ''),
          messages: fixture.messages,
          line: Math.floor(transcriptTokens * lineShare),
          tokens,
          ...(backend === undefined ? {} : { backend }),
        }),
      );
    }
  }
  const loop = throughAiSdk ? ', through the AI SDK loop' : '';
  const section = `## Backend: ${name}${loop}\n\n${about}.\n\n${table(reports)}\n\n${verdict(reports)}`;
  console.log(`${section}\n`);
  sections.push(section);
}
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`Finished in ${seconds} s.`);

if (process.argv.includes('--write') && !throughAiSdk) {
  const machine = `Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}; ${fixtures.length} transcripts × ${SHARES.length} lines per backend in ${seconds} s.`;
  const doc = `# Compaction quality

What compaction keeps of the work, measured by replaying the bundled real transcripts
(\`test/fixtures/transcripts/\`, MIT) through the real loop with the default compactor,
\`createCompactor({trigger: contextWindowTrigger(...), backend})\`, at trigger lines holding 30%
and 15% of each transcript. Regenerate this page with \`npm run bench:quality\`; it is a
benchmark, not a test, and the numbers below are its output, unedited.

## Method

\`measureCompactionQuality\` (exported from \`loopkeeper/testing\`, usable with any backend):

- A \`ScriptedModel\` answers as recorded and replay tools return the recorded outputs, so the
  loop, its compactions and its telemetry are the real ones; the store is a memory store.
- The trigger line is exact: \`contextWindowTrigger({window: line / 0.8, outputReserve: 0})\`.
  The recorded system prompt is replaced by a one-line replay instruction; the replay tools'
  schemas are sent, as a host's would be.
- Every request the model receives is checked for protocol validity.
- After the replay, the facts of the items no longer in the final request (the dropped part)
  are extracted with the harness's own patterns, which are broader than the extractive
  summarizer's, so the summarizer is not graded by its own rules: file paths and URLs the
  work touched (in requests, answers, tool arguments and error lines), error lines of tool
  output, and identifiers (ids, dates, e-mail addresses, numeric constants) the user gave or
  the agent passed to tools. A fact counts as kept when the model can still read it anywhere in
  the final request (a long line: its first 160 characters).
- The goal (the first user request) must be visible in every request after the first
  compaction.
- Columns: \`reduction\` is 1 − tokens of the last request ÷ tokens of everything logged;
  paths, error lines and identifiers are "still visible / dropped"; \`–\` means the dropped part
  had none.

## The bar

The goal kept in every replay; at least 95% of paths and error lines and 90% of identifiers of
the dropped part still visible; emergency prunes at most a quarter of compactions; every turn
completed; every request protocol-valid. Each backend's list below says which of these its run
met.

## Results

${machine}

${sections.join('\n\n')}

## Reading the results

- The extractive backend is the offline reference: deterministic, no model. An LLM backend is
  measured the same way; set \`OPENAI_API_KEY\` (and \`LOOPKEEPER_QUALITY_MODEL\`) and rerun.
- Without a backend the compactor has only the structural tier and the emergency prune, which
  still folds a deterministic record of the turns it drops into the summary; the comparison
  shows what the summary tier adds on top.
- The bundled transcripts are small (about 7k to 14k tokens) and carry few error lines (three,
  all in one tau-bench replay), so a single lost error line moves that column by a third. The
  15% lines are small windows (1.1k to 2k tokens) where the instructions and tool schemas
  already take a fifth of the line.
- In the SWE-agent marshmallow replay at 15% the task statement alone (815 tokens) nearly
  fills the 999 tokens the line leaves for the conversation; the emergency prune's last step
  cuts the middle of that request in what the model sees (the log keeps it whole) instead of
  ending the run. See docs/compaction.md, "The emergency prune".
`;
  const target = fileURLToPath(new URL('../docs/quality.md', import.meta.url));
  writeFileSync(target, doc);
  console.log(`Wrote ${target}.`);
}
