import { ConfigError } from '../../errors/config-error.js';
import { sliceText } from '../../transcript/code-points.js';
import type { Item } from '../../transcript/types.js';
import { sameItems } from '../helpers/same-items.js';
import { isSummaryItem, parseSummarySections, type SummarySection } from '../summary.js';
import { GOAL_LABEL, goalLine } from '../summary-goal.js';
import type { CompactionBackend, SummaryRequest, SummaryResult } from '../types.js';
import {
  argumentStringsOf,
  commandOfArguments,
  findFilePaths,
  findIdentifiers,
  findUrls,
  looksLikeConstraint,
  looksLikeError,
  parseArguments,
} from './extract-patterns.js';

export interface ExtractiveSummarizerOptions {
  /** Input larger than this is chunked by `summarizeOlder`; the default takes any size. */
  readonly maxInputTokens?: number;
  /** Longer lines (errors, calls, constraints) are cut to this many characters. */
  readonly maxLineLength?: number;
  /** Longer requests and conclusions are cut to this many characters. */
  readonly maxTextLength?: number;
}

// Caps on the lists that may be shortened; the goal, file paths, error lines and identifiers
// are never capped here (the summary's size cap cuts them last of all).
const maxCalls = 20;
const maxConstraints = 12;
const maxConclusions = 3;
const maxUrls = 20;
const maxEarlierProgress = 15;
const maxEarlierRequests = 5;
const identifiersLabel = 'Identifiers:';
const earlierLabel = 'Earlier request (answered):';

function clip(text: string, limit: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= limit ? flat : `${sliceText(flat, 0, limit - 1)}…`;
}

function bulletLines(section: string | undefined): string[] {
  if (section === undefined) return [];
  return section
    .split('\n')
    .map((line) => line.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '').trim())
    .filter((line) => line !== '' && !/^none(?: recorded)?\.?$/i.test(line));
}

function chunks<T>(values: readonly T[], size: number): T[][] {
  const groups: T[][] = [];
  for (let start = 0; start < values.length; start += size) {
    groups.push(values.slice(start, start + size));
  }
  return groups;
}

function unique(lines: readonly string[]): string[] {
  return [...new Set(lines)];
}

/** A section as markdown; one with no lines is its heading alone (the summary sent leaves it out). */
function section(name: SummarySection, lines: readonly string[]): string {
  return `## ${name}\n${lines.map((line) => `- ${line}`).join('\n')}`.trim();
}

function userText(item: Item): string {
  if (item.kind !== 'user') return '';
  if (typeof item.content === 'string') return item.content;
  return item.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

/**
 * Every piece of text of an item in which paths and errors may appear; an assistant item's
 * tool-call argument strings are `callStrings`, one list per call.
 */
function textsOf(item: Item, callStrings: readonly (readonly string[])[]): string[] {
  switch (item.kind) {
    case 'user':
      return [userText(item)];
    case 'context':
      // An earlier summary arrives as `previousSummary`; its paths are folded from there.
      return isSummaryItem(item) ? [] : [item.text];
    case 'toolResult':
      return [item.content];
    case 'assistant':
      return [item.text ?? '', ...callStrings.flat()];
  }
}

/** The error lines of one item's texts (`textsOf`), in order (before clipping and deduplication). */
function itemErrorLines(item: Item, texts: readonly string[]): string[] {
  const lines: string[] = [];
  for (const text of texts) {
    const candidates = text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    // Numbered lines are a file's contents in an editor view: code, not failures.
    const matching = candidates.filter((line) => !/^\d+[:|]/.test(line) && looksLikeError(line));
    // A failed result's first line says what failed even when it reads like plain prose.
    if (item.kind === 'toolResult' && item.isError && candidates[0] !== undefined) {
      lines.push(candidates[0]);
    }
    lines.push(...matching);
  }
  return lines;
}

/**
 * What the summary takes from one item, found once per item: items never change, and a
 * compaction that runs again (a retry, the next compaction folding a previous summary forward
 * over the same originals) reads the same ones. Paths and URLs found per text and listed in
 * order are the same as those found in all the texts joined by newlines: no pattern matches
 * across a line break.
 */
interface ItemFacts {
  readonly paths: readonly string[];
  readonly urls: readonly string[];
  /** Error lines, clipped, in order (not deduplicated). */
  readonly errorLines: readonly string[];
  readonly identifiers: readonly string[];
  /** One line per tool call: its command, or its name and arguments, clipped. */
  readonly calls: readonly string[];
  /** The sentences of a user request that read like constraints, clipped. */
  readonly constraints: readonly string[];
}

function itemFacts(item: Item, maxLineLength: number): ItemFacts {
  const calls = item.kind === 'assistant' ? (item.toolCalls ?? []) : [];
  // Each call's arguments parsed once, for its texts and its identifiers.
  const parsed = calls.map((call) => parseArguments(call.arguments));
  const callStrings = calls.map((call, index) =>
    argumentStringsOf(call.arguments, parsed[index] ?? 'invalid'),
  );
  const texts = textsOf(item, callStrings);
  return {
    paths: texts.flatMap(findFilePaths),
    urls: texts.flatMap(findUrls),
    errorLines: itemErrorLines(item, texts).map((line) => clip(line, maxLineLength)),
    identifiers:
      item.kind === 'user'
        ? findIdentifiers(userText(item))
        : callStrings.flatMap((strings) => strings.flatMap(findIdentifiers)),
    // A command says what was run; other calls keep their arguments, where the identifiers are.
    calls: calls.map((call, index) => {
      const command = commandOfArguments(parsed[index] ?? 'invalid');
      return command === undefined
        ? `${call.name} ${clip(call.arguments, maxLineLength)}`
        : `${call.name}: \`${clip(command, maxLineLength)}\``;
    }),
    constraints:
      item.kind === 'user'
        ? userText(item)
            .split(/(?<=[.!?])\s+|\n+/)
            .filter(looksLikeConstraint)
            .map((line) => clip(line, maxLineLength))
        : [],
  };
}

/**
 * Whether `id` is part of another entry of `joined` (entries between line breaks, one of them
 * `id` itself): an occurrence that is not a whole entry.
 */
function insideAnother(joined: string, id: string): boolean {
  for (let at = joined.indexOf(id); at !== -1; at = joined.indexOf(id, at + 1)) {
    if (joined[at - 1] !== '\n' || joined[at + id.length] !== '\n') return true;
  }
  return false;
}

function toolActivity(items: readonly Item[]): string[] {
  const byName = new Map<string, number>();
  let calls = 0;
  for (const item of items) {
    for (const call of item.kind === 'assistant' ? (item.toolCalls ?? []) : []) {
      calls += 1;
      byName.set(call.name, (byName.get(call.name) ?? 0) + 1);
    }
  }
  if (calls === 0) return [];
  const failed = items.filter((item) => item.kind === 'toolResult' && item.isError).length;
  const names = [...byName]
    .sort(
      ([left, leftCount], [right, rightCount]) => rightCount - leftCount || (left < right ? -1 : 1),
    )
    .map(([name, count]) => `${name} ×${count}`)
    .join(', ');
  return [`${calls} tool call${calls === 1 ? '' : 's'} (${names}); ${failed} failed.`];
}

/**
 * A summarizer backend that needs no model: it picks the facts an agent needs to continue out
 * of the text itself (the requests, constraints, tool calls and commands, file paths, errors and the latest
 * conclusions) and writes them in the fixed sections. Deterministic: the same input always
 * gives the same summary. File paths and error lines are all kept, one per line, deduplicated;
 * everything else is capped so the summary stays small.
 *
 * @example
 * ```ts
 * import { contextWindowTrigger, createCompactor, extractiveSummarizer } from 'loopkeeper';
 *
 * // Offline and deterministic: no model call for summaries.
 * const compactor = createCompactor({
 *   trigger: contextWindowTrigger({ window: 8_000 }),
 *   backend: extractiveSummarizer(),
 * });
 * ```
 */
export function extractiveSummarizer({
  maxInputTokens = Number.POSITIVE_INFINITY,
  maxLineLength = 240,
  maxTextLength = 600,
}: ExtractiveSummarizerOptions = {}): CompactionBackend {
  if (!(maxInputTokens > 0)) {
    throw new ConfigError(
      `extractiveSummarizer: maxInputTokens must be positive, got ${maxInputTokens}`,
    );
  }
  if (!(maxLineLength >= 20) || !(maxTextLength >= 20)) {
    throw new ConfigError('extractiveSummarizer: maxLineLength and maxTextLength must be >= 20');
  }

  const facts = new WeakMap<Item, ItemFacts>();
  const factsOf = (item: Item): ItemFacts => {
    let found = facts.get(item);
    if (found === undefined) {
      found = itemFacts(item, maxLineLength);
      facts.set(item, found);
    }
    return found;
  };

  function summarizeNow({
    transcript,
    previousSummary,
    instructions,
  }: SummaryRequest): SummaryResult {
    const previous = previousSummary === undefined ? {} : parseSummarySections(previousSummary);
    const requests = transcript.map(userText).filter((text) => text.trim() !== '');

    // The goal is the first request ever made, carried forward verbatim; every request of this
    // part was answered within it, so they are history, never something left to do.
    const earlierGoal = bulletLines(previous.Goal);
    const recorded = earlierGoal.find((line) => line.startsWith(GOAL_LABEL));
    const first = recorded === undefined ? requests[0] : undefined;
    const earlierRequests = [
      ...bulletLines(previous.Progress).filter((line) => line.startsWith(earlierLabel)),
      ...requests
        .slice(recorded === undefined ? 1 : 0)
        // Only the last few are kept: only those are clipped.
        .slice(-maxEarlierRequests)
        .map((text) => `${earlierLabel} ${clip(text, maxLineLength)}`),
    ].slice(-maxEarlierRequests);
    const goalLines =
      recorded !== undefined ? [recorded] : first !== undefined ? [goalLine(first).slice(2)] : [];

    const constraints = unique([
      // Without a model to follow them, the host's instructions are kept as they were given.
      ...(instructions === undefined || instructions.trim() === ''
        ? []
        : [`Compaction instructions from the host: ${clip(instructions, maxTextLength)}`]),
      ...bulletLines(previous['Decisions and constraints']),
      ...transcript.flatMap((item) => factsOf(item).constraints),
    ]).slice(-maxConstraints);

    const calls = unique(transcript.flatMap((item) => factsOf(item).calls));
    // Identifiers the user gave and the agent passed to tools survive even when the calls
    // listing them is cut: they are kept with the files, the last section to be shortened.
    const identifiers = unique([
      ...bulletLines(previous['Files and artifacts'])
        .filter((line) => line.startsWith(identifiersLabel))
        .flatMap((line) =>
          line
            .slice(identifiersLabel.length)
            .split(',')
            .map((id) => id.trim()),
        )
        .filter((id) => id !== ''),
      ...transcript.flatMap((item) => factsOf(item).identifiers),
    ]);
    const conclusions = transcript
      .flatMap((item) =>
        item.kind === 'assistant' && item.text !== undefined && item.text.trim() !== ''
          ? [item.text]
          : [],
      )
      .slice(-maxConclusions)
      .map((text) => clip(text, maxTextLength));
    const earlierProgress = bulletLines(previous.Progress)
      .filter((line) => !line.startsWith(earlierLabel))
      .slice(-maxEarlierProgress);
    const progress = [
      ...earlierRequests,
      ...earlierProgress.map((line) => (line.startsWith('Earlier: ') ? line : `Earlier: ${line}`)),
      ...toolActivity(transcript),
      ...(calls.length > maxCalls
        ? [`Calls made (the last ${maxCalls} of ${calls.length} distinct):`]
        : calls.length > 0
          ? ['Calls made:']
          : []),
      ...calls.slice(-maxCalls),
      ...conclusions.map((text) => `Assistant concluded: ${text}`),
    ];

    const paths = unique([
      ...bulletLines(previous['Files and artifacts']).filter(
        (line) => !line.startsWith(identifiersLabel),
      ),
      ...unique(transcript.flatMap((item) => factsOf(item).paths)),
      ...unique(transcript.flatMap((item) => factsOf(item).urls)).slice(0, maxUrls),
    ]);
    // An identifier a listed path or a longer identifier already spells out (`mod0` of
    // `src/mod0.py`, `6276644` of `gift_card_6276644`) takes no room.
    // Each list joined by line breaks, which no identifier holds: a search of the joined text
    // finds what a search of every entry would, in one native scan instead of one per entry.
    const joinedPaths = paths.join('\n');
    const joinedIdentifiers = `\n${identifiers.join('\n')}\n`;
    const unlisted = identifiers.filter(
      (id) => !joinedPaths.includes(id) && !insideAnother(joinedIdentifiers, id),
    );
    const files = [
      ...paths,
      // A few per line, so a cut to the summary's size drops the oldest, not all of them.
      ...chunks(unlisted, 8).map((group) => `${identifiersLabel} ${group.join(', ')}`),
    ];
    const errors = unique([
      ...bulletLines(previous['Errors seen']),
      ...transcript.flatMap((item) => factsOf(item).errorLines),
    ]);

    // Without a model there is no next step to infer, and a section says nothing it has not
    // seen: an empty one is its heading alone, which the summary as sent leaves out.
    const text = [
      section('Goal', goalLines),
      section('Decisions and constraints', constraints),
      section('Progress', progress),
      section('Files and artifacts', files),
      section('Errors seen', errors),
      section('Next step', []),
    ].join('\n\n');
    return { text };
  }

  // The summary is a function of the items, the summary folded forward and the instructions
  // alone: a compaction run again over the same items (a retry) gets the latest one back
  // without gathering it again. Items are compared as objects, so it is never one of others.
  let latest:
    | {
        readonly transcript: readonly Item[];
        readonly previousSummary: string | undefined;
        readonly instructions: string | undefined;
        readonly text: string;
      }
    | undefined;
  function summarizeOnce(request: SummaryRequest): SummaryResult {
    const { transcript, previousSummary, instructions } = request;
    if (
      latest !== undefined &&
      latest.previousSummary === previousSummary &&
      latest.instructions === instructions &&
      sameItems(latest.transcript, transcript)
    ) {
      return { text: latest.text };
    }
    const { text } = summarizeNow(request);
    latest = { transcript: [...transcript], previousSummary, instructions, text };
    return { text };
  }

  return {
    name: 'extractive',
    maxInputTokens,
    summarize: async (request) => summarizeOnce(request),
  };
}
