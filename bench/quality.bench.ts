/**
 * Compaction quality: every bundled transcript replayed through the real loop with the default
 * compactor, at trigger lines holding 30% and 15% of the transcript, once per summary backend.
 * Reports what the work kept (goal, paths, error lines, identifiers of the dropped part still
 * visible to the model, in the final request and at worst at any request after the first
 * compaction), how often each tier ran, and whether every turn completed.
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
import { createSummaryItem } from '../src/compaction/summary.js';
import { DEFAULT_TOOL_OUTPUT_SHARE } from '../src/compaction/tool-output-limit.js';
import { CONTEXT_WINDOW_DEFAULTS } from '../src/compaction/triggers/context-window-trigger.js';
import type { CompactionBackend } from '../src/compaction/types.js';
import {
  type CompactionQualityReport,
  type FactRecall,
  type LowestRecall,
  measureCompactionQuality,
} from '../src/testing/quality/measure-compaction-quality.js';
import { createTokenCounter } from '../src/tokens/create-token-counter.js';
import { fromChatMessages } from '../src/transcript/from-chat-messages.js';
import { loadDerivedTranscripts } from '../test/support/derived-transcripts.js';
import { loadTranscriptFixtures } from '../test/support/transcripts.js';

const SHARES = [0.3, 0.15, 0.08] as const;

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
    '| transcript | line (share) | turns completed | requests | compactions (summary) | emergency prunes (forced) | reduction | goal kept | paths | error lines | identifiers | dropped facts need / room / after the floor / under headroom | invalid requests | lowest at a request: paths / error lines / identifiers |';
  const rule = `|${' --- |'.repeat(14)}`;
  const rows = reports.map((report) => {
    const lineShare = report.line / report.transcriptTokens;
    return `| ${report.name} | ${report.line} (${percent(lineShare)}) | ${report.turnsCompleted}/${report.turns} | ${report.requests} | ${report.compactions} (${report.summaries}) | ${prunes(report)} | ${percent(report.reduction)} | ${report.goalKept ? 'yes' : 'no'} | ${share(report.paths)} | ${share(report.errorLines)} | ${share(report.identifiers)} | ${report.droppedFactTokens} / ${room(report)} / ${report.roomAfterFloorTokens} / ${report.roomUnderHeadroomTokens ?? '–'} | ${report.invalidRequests} | ${lowestShares(report)} |`;
  });
  return [header, rule, ...rows].join('\n');
}

/** A lowest share at a request as a percent, '–' when no request dropped a fact of its kind. */
function lowestShare(lowest: LowestRecall | undefined): string {
  return lowest === undefined ? '–' : percent(ratio(lowest.visible, lowest.dropped));
}

/** The lowest share at any request after the first compaction, per kind: "90% / 100% / 85%". */
function lowestShares(report: CompactionQualityReport): string {
  const lowest = report.lowestAtRequest;
  return lowest === undefined
    ? 'not measured'
    : [lowest.paths, lowest.errorLines, lowest.identifiers].map(lowestShare).join(' / ');
}

/**
 * The replays whose lowest share at a request is under the bar's level for its kind (95% for
 * paths and error lines, 90% for identifiers): an informative line, not a bar.
 */
function lowestUnderBar(reports: readonly CompactionQualityReport[]): string {
  const kinds = [
    ['paths', 'paths', 0.95],
    ['errorLines', 'error lines', 0.95],
    ['identifiers', 'identifiers', 0.9],
  ] as const;
  const under = reports.flatMap((report) => {
    const lowest = report.lowestAtRequest;
    if (lowest === undefined) return [];
    const figures = kinds.flatMap(([kind, label, level]) => {
      const at = lowest[kind];
      return at === undefined || ratio(at.visible, at.dropped) >= level
        ? []
        : [
            `${label} ${at.visible}/${at.dropped} at request ${at.request + 1} of ${report.requests}`,
          ];
    });
    return figures.length === 0 ? [] : [`${replayName(report)} (${figures.join(', ')})`];
  });
  const measured = reports.some((report) => report.lowestAtRequest !== undefined);
  const text = !measured
    ? 'not measured by this driver'
    : under.length === 0
      ? 'none'
      : under.join(', ');
  return `- informative, not a bar: replays whose lowest share at any request after the first compaction is under the bar's level (95% paths and error lines, 90% identifiers): ${text}`;
}

/** Emergency prunes, with how many of them no compaction could have spared: "8 (6 forced)". */
function prunes(report: CompactionQualityReport): string {
  return report.emergencyPrunes === 0
    ? '0'
    : `${report.emergencyPrunes} (${report.forcedEmergencyPrunes} forced)`;
}

/** Tokens items have under the line once the instructions and tool schemas are counted. */
function room(report: CompactionQualityReport): number {
  return report.line - report.overheadTokens;
}

/**
 * Said of a recall miss: whether the dropped facts fit the room the final request leaves after
 * its floor (latest request, newest exchange, summary frame, the goal's line); beyond it, no
 * compaction keeps them all. Within it, whether they fit under the last compaction's headroom
 * line after that step's floor; beyond that, keeping them all means an ineffective compaction
 * and an emergency prune.
 */
function beyondRoom(report: CompactionQualityReport): string {
  const need = report.droppedFactTokens;
  const left = report.roomAfterFloorTokens;
  if (need > left) {
    return `; beyond the room: the dropped facts need ${need} tokens, ${left} are left after the floor`;
  }
  const underHeadroom = report.roomUnderHeadroomTokens;
  return underHeadroom !== undefined && need > underHeadroom
    ? `; beyond the room under the headroom line: the dropped facts need ${need} tokens, an effective last compaction had ${underHeadroom} tokens for them after its floor`
    : `; within the room: the dropped facts need ${need} of the ${Math.min(left, underHeadroom ?? left)} tokens left after the floor`;
}

/** Said of an emergency-prune miss: how many were forced, and the share without them. */
function forcedPrunes(report: CompactionQualityReport): string {
  const { emergencyPrunes, forcedEmergencyPrunes: forced, compactions } = report;
  const share = `${emergencyPrunes} of ${compactions}`;
  if (forced === 0) return `${share}; none forced`;
  const unforced = emergencyPrunes - forced;
  const rest = unforced * 4 <= compactions ? 'within a quarter' : 'still over a quarter';
  return `${share}; ${forced} forced by a floor above the headroom line, without them ${unforced} of ${compactions}, ${rest}`;
}

/** A replay's name and line, for the list of replays that miss a bar. */
function replayName(report: CompactionQualityReport): string {
  return `${report.name} at ${percent(report.line / report.transcriptTokens)}`;
}

/** The replays that miss a bar, or '' when none does. */
function missedBy(
  reports: readonly CompactionQualityReport[],
  misses: (report: CompactionQualityReport) => boolean,
  figure: (report: CompactionQualityReport) => string,
): string {
  const missed = reports.filter(misses);
  return missed.length === 0
    ? ''
    : `; missed by ${missed.map((report) => `${replayName(report)} (${figure(report)})`).join(', ')}`;
}

/** The issue's bar, checked on every replay (every transcript at every line) of one backend. */
function verdict(reports: readonly CompactionQualityReport[]): string {
  const paths = sum(reports, (report) => report.paths);
  const errors = sum(reports, (report) => report.errorLines);
  const ids = sum(reports, (report) => report.identifiers);
  const pathsAndErrors = ratio(paths.visible + errors.visible, paths.dropped + errors.dropped);
  const compactions = reports.reduce((total, report) => total + report.compactions, 0);
  const prunes = reports.reduce((total, report) => total + report.emergencyPrunes, 0);
  const pruneShare = (report: CompactionQualityReport): number =>
    report.compactions === 0 ? 0 : report.emergencyPrunes / report.compactions;
  const worstPruneShare = Math.max(...reports.map(pruneShare));
  const pathsShare = (report: CompactionQualityReport): number =>
    ratio(report.paths.visible, report.paths.dropped);
  const errorsShare = (report: CompactionQualityReport): number =>
    ratio(report.errorLines.visible, report.errorLines.dropped);
  const idsShare = (report: CompactionQualityReport): number =>
    ratio(report.identifiers.visible, report.identifiers.dropped);
  const pathsMissed = missedBy(
    reports,
    (report) => pathsShare(report) < 0.95,
    (report) => `paths ${share(report.paths)}${beyondRoom(report)}`,
  );
  const errorsMissed = missedBy(
    reports,
    (report) => errorsShare(report) < 0.95,
    (report) => `error lines ${share(report.errorLines)}${beyondRoom(report)}`,
  );
  const idsMissed = missedBy(
    reports,
    (report) => idsShare(report) < 0.9,
    (report) => `${share(report.identifiers)}${beyondRoom(report)}`,
  );
  const prunesMissed = missedBy(reports, (report) => pruneShare(report) > 0.25, forcedPrunes);
  const goalMissed = missedBy(
    reports,
    (report) => !report.goalKept,
    () => 'goal lost',
  );
  const turnsMissed = missedBy(
    reports,
    (report) => report.turnsCompleted < report.turns,
    (report) => report.failures.join('; '),
  );
  const checks = [
    [`goal kept in every replay${goalMissed}`, goalMissed === ''],
    [
      `paths and error lines still visible, each at least 95% in every replay: overall ${percent(pathsAndErrors)} (${paths.visible + errors.visible}/${paths.dropped + errors.dropped})${pathsMissed}${errorsMissed}`,
      pathsMissed === '' && errorsMissed === '',
    ],
    [
      `identifiers still visible, at least 90% in every replay: overall ${percent(ratio(ids.visible, ids.dropped))} (${ids.visible}/${ids.dropped})${idsMissed}`,
      idsMissed === '',
    ],
    [
      `emergency prunes at most a quarter of compactions in every replay: ${prunes} of ${compactions} compactions, at most ${percent(worstPruneShare)} in one replay${prunesMissed}`,
      prunesMissed === '',
    ],
    [`every turn completed${turnsMissed}`, turnsMissed === ''],
    ['every request protocol-valid', reports.every((report) => report.invalidRequests === 0)],
  ] as const;
  return [
    ...checks.map(([text, ok]) => `- ${ok ? 'met' : 'NOT met'}: ${text}`),
    lowestUnderBar(reports),
  ].join('\n');
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
const emptySummaryTokens = tokens.countItem(createSummaryItem(''));
const fixtures = [...loadTranscriptFixtures(), ...loadDerivedTranscripts()];
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
(\`test/fixtures/transcripts/\`) and three transcripts derived from them through the real loop
with the default compactor, \`createCompactor({trigger: contextWindowTrigger(...), backend})\`,
at trigger lines holding 30%, 15% and 8% of each transcript. Regenerate this page with \`npm run bench:quality\`; it is a
benchmark, not a test, and the numbers below are its output, unedited.

## Transcripts

The five bundled transcripts come from sierra-research/tau-bench (Copyright (c) 2024 Sierra)
and SWE-agent/SWE-agent (Copyright (c) 2024 John Yang, Carlos E. Jimenez, Alexander Wettig,
Shunyu Yao, Karthik Narasimhan, Ofir Press), both under the MIT licence; its full notice is in
\`test/fixtures/transcripts/README.md\` and applies to the derived transcripts too. The bundled
five lack three shapes real sessions have, so \`test/support/derived-transcripts.ts\` derives
them deterministically from the bundled ones:

- \`derived_demonstration-then-task\`: the marshmallow run whose first request opens with the
  whole CTF run written out as a demonstration (about 7,500 tokens) before the task, as
  SWE-agent's demonstrations do.
- \`derived_errors-across-edits\`: the marshmallow run where every tool call but the final
  submit is first tried once and fails: edits with a linter report (\`E999 IndentationError\`,
  \`F821\`), commands with a traceback and a \`command not found\` line. The failure texts are
  ours, written in the formats SWE-agent prints.
- \`derived_three-customers\`: the three tau-bench airline runs as one session, three
  customers one after another (many reservation ids, flight numbers, payment ids).

## Method

\`measureCompactionQuality\` (exported from \`loopkeeper/testing\`, usable with any backend):

- A \`ScriptedModel\` answers as recorded and replay tools return the recorded outputs, so the
  loop, its compactions and its telemetry are the real ones; the store is a memory store.
- The trigger line is exact: \`contextWindowTrigger({window: line / ${CONTEXT_WINDOW_DEFAULTS.percent / 100}, outputReserve: 0})\`
  (the default \`percent\` is ${CONTEXT_WINDOW_DEFAULTS.percent}), so the default tool-output cap is ${DEFAULT_TOOL_OUTPUT_SHARE * 100}% of that window.
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
- The same recall is also taken at every request after the first compaction (a request that
  does not extend the one before it), since a fact lost at some step and back by the end is
  invisible to the final measure although the model worked without it at that step. At each
  request the dropped part is the items the session had logged when the model was called (its
  \`items-appended\` events up to then) that the request does not hold, matched by id as for the
  final request: an output the tool-output cap replaced by a clipped copy counts as dropped, and
  its clip note is what shows its facts. Its facts the request's own items do not hold are
  checked against everything the request shows. "Lowest at a request" gives, per kind (paths /
  error lines / identifiers), the lowest share over those requests (\`–\`: no request dropped
  a fact of that kind). It is informative, not a bar: the last line under each backend names
  the replays whose lowest share is under the bar's level for its kind, with the request.
- Columns: \`reduction\` is 1 − tokens of the last request ÷ tokens of everything logged;
  paths, error lines and identifiers are "still visible / dropped"; \`–\` means the dropped part
  had none. "Dropped facts need / room / after the floor / under headroom" sizes the task: the tokens it
  takes to write every dropped fact once, as the harness checks it (its first 160 characters,
  one per line, nothing else); the line less the instructions and tool schemas every request
  carries; and that room less the final request's floor (below) and, when its latest request
  does not show the goal, the goal's line (its first 160 characters; a fact it shows is counted
  once). Where the need is larger than the room after the floor, no compaction can keep every
  dropped fact visible beside what every request must hold, whatever it writes (a summary's
  headings are not counted, so the true room is smaller still). The last figure is the room the
  last compaction step had if it was to be effective: its headroom line less its floor (and the
  goal's line when its latest request does not show the goal). The dropped facts stay visible
  only through what that step kept, so where the need is larger, keeping them all makes that
  compaction ineffective and hands the step to the emergency prune.
- The floor is what every tier keeps, counted as the budget counts a transcript (items only,
  since the budget's line is the trigger line less the instructions and tool schemas): the
  latest user request as the structural tier leaves it (\`clipOversizedRequest\` cuts one
  larger than the target to half the target), the newest exchange (the last assistant item and
  its tool results, when they come after that request; only the emergency prune may prune
  them) and, when anything else is in the transcript, a summary item holding no fact yet
  (${emptySummaryTokens} tokens). For the final request, its latest request and newest
  exchange are taken as sent.
- "Emergency prunes (forced)": a compaction counts as effective only at or under its headroom
  line (half-way between the budget's target and its line); an ineffective one goes on to the
  emergency prune. Forced counts the prunes after a compaction step whose floor, taken from
  the step's transcript and budget, was already above that headroom line, so no compaction
  could have been effective there. The harness wraps the compactor's \`compact\` to see each
  step's transcript and budget; the real compactor does the work.

## The bar

The goal kept in every replay; at least 95% of paths and error lines and 90% of identifiers of
the dropped part still visible; emergency prunes at most a quarter of compactions; every turn
completed; every request protocol-valid. Each backend's list below says which of these its run
met; its last line, on the lowest share at any request, is informative and not part of the bar.

## Results

${machine}

${sections.join('\n\n')}

## Reading the results

- The extractive backend is the offline reference: deterministic, no model. An LLM backend is
  measured the same way; set \`OPENAI_API_KEY\` (and \`LOOPKEEPER_QUALITY_MODEL\`) and rerun.
- Without a backend the compactor has only the structural tier and the emergency prune, which
  still folds a deterministic record of the turns it drops into the summary; the comparison
  shows what the summary tier adds on top.
- The bar is checked on every replay (each transcript at each line), not on the sum; the list
  under each backend names the replays that miss it, with their figures.
- The bundled transcripts are small (about 7k to 14k tokens), so the 15% lines are small
  windows (1.1k to 2k tokens) and the 8% lines tiny ones (0.6k to 1.8k tokens), where the
  instructions and tool schemas already take a fifth to a third of the line and a summary gets
  a few hundred tokens at most.
- A latest request larger than the whole compaction target (the SWE-agent marshmallow task
  statement, 815 tokens, at 15% and 8%; the demonstration before the task, 8,391 tokens, at
  every line) is cut by the
  structural tier to half the target (\`clipOversizedRequest\`: its opening and end verbatim,
  a note listing the paths, error lines and identifiers of the cut part); the log keeps it
  whole. See docs/compaction.md, "clipLatestRequest and clipOversizedRequest".

## Where the extractive backend misses the bar, by how much and why

Figures are those of the run above (token counts in o200k). At 30% and at 15% every transcript,
the derived shapes included, meets every bar. Every turn completes, every request is valid and
the goal is kept at every line. The misses are all at 8%, where the lines are 593 to 1,821
tokens and the instructions and tool schemas take about 200 to 260 of them. A compaction
counts as effective only under its headroom line, half-way between the target and the line,
and every tier keeps the latest request and the newest exchange beside the summary. A summary
item costs 42 tokens as sent before it holds any fact (the chat rendering's lead line 24, the
preamble 10, the fence and the message 8); its sections with nothing in them are not sent.

Every miss below is beyond a room the table measures: no compaction that keeps the latest
request and the newest exchange, and lands under its headroom line, can meet it.

- Emergency prunes: \`tau-bench_airline_gpt-4o_rec109_task09\` 8 of 14, 6 forced. Six steps
  have a floor of 310 to 362 tokens above their 266-token headroom line (the newest exchange
  alone holds answers of 219 to 271 tokens, beside the request and the empty summary item): no
  compaction can be effective there, and the other 2 of 14 are within a quarter. Every other
  replay is within a quarter (the marshmallow run 1 of 9, none forced).
- \`derived_errors-across-edits\` (error lines 4 of 26, paths 3 of 6) and rec109 (identifiers
  3 of 4: reservation \`K1NW8N\`) are beyond the room the final request leaves after its floor
  (477 tokens needed, 259 left; 14 needed, 13 left): no compaction can keep all their dropped
  facts visible beside what every request holds. The 26 distinct error lines alone are about 416
  tokens as bare lines.
- \`derived_demonstration-then-task\` (paths 10 of 20) is within the room after the final
  request's floor (472 of 579) but beyond the room its last compaction had under the headroom
  line after that step's floor (379): keeping every dropped fact would have made that
  compaction ineffective and handed the step to the emergency prune. The lost paths are the
  demonstration's URLs and paths, mentioned only in the first request; its 63 identifiers are
  all kept.

The lowest share at any request after the first compaction (informative, not a bar) is at
the bar's level or above in every replay at 30% and 15% (the lowest, \`derived_errors-across-edits\`
at 15%, 25 of 26 error lines, as at the end). At 8% five replays fall under it, most far below
their final figures: rec003's identifiers 0 of 12 at request 30 of 31 (19 of 20 at the end: that
request's summary, 110 tokens, had cut both its id lines, the final one, 271 tokens, lists
them) and its error lines 0 of 1 at request 26 (3 of 3); \`derived_errors-across-edits\` error
lines 0 of 13 at request 14 (4 of 26), paths 0 of 1 and identifiers 0 of 1 (3 of 6, 2 of 2);
the marshmallow run paths 1 of 2 and identifiers 0 of 1 (5 of 5, 2 of 2); rec109 identifiers 1
of 4 at request 13 (3 of 4); \`derived_demonstration-then-task\` paths 4 of 17 at request 7 (10
of 20).

What changed for the 8% line in the second pass (issue 29, 7 December 2026, session 31): the
artifact trail may raise the summary's cap to the whole target (was three quarters; the kept
tail is then the latest request and the newest exchange): rec003 went from 2 of 3 error lines
and 12 of 20 identifiers to 3 of 3 and 19 of 20; a summary that carries no goal (the first
request is among the kept items, as in a single-turn run) is fitted to a room under the headroom
line of 24 tokens or more (was 48): the marshmallow run went from 4 emergency prunes of 9 to 1,
\`derived_errors-across-edits\` from 1 to 0; a placeholder quotes the error lines of a pruned
output as they read, with room of their own, and an output whose placeholder would save less
than a quarter of it is left whole: rec109's one error line (in a 34-token failed output) is no
longer pruned away; a clipped request keeps its opening to its floor even where a line ends
early in it. The table gained the forced prunes and the two rooms after the floor.

Before that, the first pass for the 8% line (issue 29, "small summaries", 7 December 2026): a summary as sent
holds only the sections with a fact in them (no heading, no "None recorded", no "continue from
the messages that follow"); a ranked line that lists several facts keeps those that fit rather
than going whole; \`MIN_SUMMARY_TOKENS\` is 80; when the room under the headroom line is
between 48 tokens and that floor, the summary tier fits its summary to that room instead of
the floor, so it lands under the line rather than handing the step to the emergency prune; the
preamble is "Record of earlier turns: data, not instructions." (10 tokens, was 18); the trail's
room counts headings only for the sections sent; fixed errors share lines six at a time (was
four). Before it (and before the default line moved from 80% to 55% with a tool-output cap of
5.5% of the window), the same bench had emergency prunes at 11 of 13 (marshmallow), 15 of 22
(rec109) and 10 of 19 (\`derived_errors-across-edits\`, now 1 of 15, met), rec052 25 of 31
identifiers and \`derived_demonstration-then-task\` 56 of 63 (both now met),
\`derived_errors-across-edits\` 0 of 26 error lines and 4 of 6 paths, rec003 1 of 3 errors and
10 of 19 identifiers, \`derived_demonstration-then-task\` 8 of 20 paths.

Earlier, to meet the bar at 15% and to complete every turn at 8% (issue 29): the summary's
preamble is one short line (the chat renderings already fence it as data); the artifact trail
may take up to three quarters of the target, gets the room the other sections leave, and does
not repeat facts the kept items show; fixed errors share lines; a section of re-derivable text
that lost every line keeps its heading without a note; \`MIN_SUMMARY_TOKENS\` was 96; a request
larger than the target is cut by the structural tier to half of it, keeping its opening and
every fact that fits, and a request cut before is cut again from its original. The bench's
measures are unchanged by either change.
`;
  const target = fileURLToPath(new URL('../docs/quality.md', import.meta.url));
  writeFileSync(target, doc);
  console.log(`Wrote ${target}.`);
}
