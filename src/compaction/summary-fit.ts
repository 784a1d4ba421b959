import type { TokenCounter } from '../tokens/types.js';
import { truncateTextToTokens } from './summarizers/truncate.js';
import {
  isFillerLine,
  parseSummarySections,
  renderSummarySections,
  SUMMARY_SECTIONS,
  type SummarySection,
} from './summary.js';
import { GOAL_LABEL } from './summary-goal.js';

/**
 * The share of a summary's budget each section is guaranteed when the summary is over its cap,
 * so no section can crowd out another: a section that needs less than its share leaves the
 * rest to the others (the errors first, then the files, the goal, and the rest). The files and errors (where the artifact trail
 * rendered from the log leads) get the most: they are what the agent cannot re-derive.
 *
 * @example
 * ```ts
 * import { SUMMARY_SHARES } from 'loopkeeper/compaction';
 *
 * // Tokens the goal may keep of a 1,000-token summary when every section is full.
 * console.log(Math.floor(1_000 * SUMMARY_SHARES.Goal));
 * ```
 */
export const SUMMARY_SHARES: Readonly<Record<SummarySection, number>> = {
  Goal: 0.12,
  'Decisions and constraints': 0.03,
  Progress: 0.05,
  'Files and artifacts': 0.48,
  'Errors seen': 0.3,
  'Next step': 0.02,
};

/**
 * Kept for hosts that read it: the order in which sections gave up lines before sections had
 * shares. The fit now cuts every section to its share at once.
 */
export const SUMMARY_CUT_ORDER: readonly SummarySection[] = [
  'Next step',
  'Progress',
  'Decisions and constraints',
  'Errors seen',
  'Files and artifacts',
  'Goal',
];

export interface FitSummaryOptions {
  readonly text: string;
  readonly maxTokens: number;
  readonly tokens: TokenCounter;
}

export interface FittedSummary {
  readonly text: string;
  /** Lines cut, per section. */
  readonly cut: Readonly<Partial<Record<SummarySection, number>>>;
  /** Whether the goal line had to be shortened (its head and tail kept). */
  readonly goalShortened: boolean;
}

type Sections = Map<SummarySection, string[]>;

/** The sections with something in them; an empty one is left out, heading and all. */
function render(sections: Sections): string {
  return renderSummarySections(sections);
}

function cutNote(name: SummarySection, count: number): string {
  const lines = `${count} line${count === 1 ? '' : 's'}`;
  return ranked.has(name) ? `- (${lines} cut; the session log has them all)` : `- (${lines} cut)`;
}

/** The note where the middle of a long goal was cut; it keeps the frame `truncateTextToTokens` recognizes. */
function goalCutNote(omitted: number): string {
  return `[… about ${omitted} tokens of this request left out here; the session log keeps it whole …]`;
}

/**
 * Sections whose lines come ranked, most important first (the artifact trail the loop renders
 * from its ledger leads them): they lose their last lines. The others lose their oldest.
 */
const ranked: ReadonlySet<SummarySection> = new Set(['Files and artifacts', 'Errors seen']);

/** The least a shortened goal keeps, so it still says what the user asked for. */
const minGoalTokens = 48;
/** Room kept for each section's cut note. */
const noteTokens = 6;

/**
 * Who gets the room the guarantees leave, first to last: the errors and the files (the trail),
 * then the goal, then what the agent can re-derive.
 */
const LEFTOVER_ORDER: readonly SummarySection[] = [
  'Errors seen',
  'Files and artifacts',
  'Goal',
  'Decisions and constraints',
  'Progress',
  'Next step',
];

/**
 * Each section's allowance: first what it needs up to its guaranteed share of `available`;
 * then the room left (from sections that needed less than their share) goes to the sections
 * still short, in `LEFTOVER_ORDER`.
 */
function allowances(
  needs: ReadonlyMap<SummarySection, number>,
  available: number,
): Map<SummarySection, number> {
  const result = new Map<SummarySection, number>();
  let left = available;
  for (const [name, need] of needs) {
    const granted = Math.min(need, Math.floor(available * SUMMARY_SHARES[name]));
    result.set(name, granted);
    left -= granted;
  }
  for (const name of LEFTOVER_ORDER) {
    const short = (needs.get(name) ?? 0) - (result.get(name) ?? 0);
    if (short <= 0 || left <= 0) continue;
    const extra = Math.min(short, left);
    result.set(name, (result.get(name) ?? 0) + extra);
    left -= extra;
  }
  return result;
}

/**
 * The summary as sent, cut down to `maxTokens` with every section held to its guaranteed share
 * (`SUMMARY_SHARES`). Only the sections with a fact are sent: a section with nothing in it, or
 * only a placeholder such as "- None.", loses its heading too, whether the text fits or not.
 * Within a section the oldest lines go first and a note says how many (the files and errors,
 * which the artifact trail leads in rank order, lose their last lines, and the last of them that
 * lists several facts keeps those at its head that fit); the goal's first line (the user's
 * first request) keeps its head and tail with a note that the log keeps it whole. A text cut
 * before is cut around its note, never through it. A summary with no fact at all is the six
 * headings alone. When even the least of every section is over `maxTokens`, the sections left
 * with only their cut note go too.
 *
 * @example
 * ```ts
 * import { fitSummaryText } from 'loopkeeper/compaction';
 * import { createTokenCounter } from 'loopkeeper';
 *
 * const fitted = fitSummaryText({
 *   text: '## Goal\n- Ship.\n## Decisions and constraints\n- None.\n## Progress\n- Done.\n## Files and artifacts\n- a.ts\n## Errors seen\n- None.\n## Next step\n- Tag.',
 *   maxTokens: 200,
 *   tokens: await createTokenCounter(),
 * });
 * console.log(fitted.text);
 * ```
 */
export function fitSummaryText({ text, maxTokens, tokens }: FitSummaryOptions): FittedSummary {
  const parsed = parseSummarySections(text);
  const sectioned = SUMMARY_SECTIONS.some((name) => parsed[name] !== undefined);
  // A sectioned summary is sent without its empty sections and placeholder lines.
  const compact = sectioned ? renderSummarySections(parsed) : text;
  if (tokens.countText(compact) <= maxTokens) {
    return { text: compact, cut: {}, goalShortened: false };
  }
  if (!sectioned) {
    // Not a sectioned summary (a host's own note): cut as plain text, head and tail kept.
    return {
      text: truncateTextToTokens({ text, maxTokens, tokens }),
      cut: {},
      goalShortened: false,
    };
  }
  const original: Sections = new Map();
  for (const name of SUMMARY_SECTIONS) {
    const body = parsed[name];
    original.set(
      name,
      (body ?? '').split('\n').filter((line) => !isFillerLine(line)),
    );
  }
  const lineTokens = new Map<string, number>();
  const sizeOf = (line: string): number => {
    let size = lineTokens.get(line);
    if (size === undefined) {
      size = tokens.countText(line) + 1;
      lineTokens.set(line, size);
    }
    return size;
  };
  const needs = new Map<SummarySection, number>();
  for (const [name, lines] of original) {
    needs.set(
      name,
      lines.reduce((total, line) => total + sizeOf(line), 0),
    );
  }
  // The headings of the sections that have something to say; an emptied one frees its own.
  const frame = tokens.countText(
    SUMMARY_SECTIONS.filter((name) => (original.get(name) ?? []).length > 0)
      .map((name) => `## ${name}`)
      .join('\n\n'),
  );
  // Counts of parts add up to about the count of the whole, and the cut notes cost a little:
  // the recount decides, and the room given out moves towards the largest that fits.
  const filled = [...original.values()].filter((lines) => lines.length > 0).length;
  let available = maxTokens - frame - noteTokens * filled;
  let best: FittedSummary | undefined;
  let fits = 0;
  let over = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < 6; attempt += 1) {
    const result = settle(original, needs, Math.max(0, available), sizeOf, tokens);
    const total = tokens.countText(result.text);
    if (total <= maxTokens) {
      best = result;
      fits = available;
      const slack = maxTokens - total;
      if (slack <= 8 || (Object.keys(result.cut).length === 0 && !result.goalShortened)) break;
      available = Math.min(available + slack, Math.floor((available + slack + over) / 2), over - 1);
      if (available <= fits) break;
    } else {
      over = Math.min(over, available);
      available = Math.max(0, available - (total - maxTokens) - 4);
      if (best !== undefined && available <= fits) break;
    }
  }
  const fitted =
    best ??
    withoutNoteOnlySections(
      cutToAllowances(original, allowances(needs, 0), sizeOf, tokens),
      maxTokens,
      tokens,
    );
  return { text: fitted.text, cut: fitted.cut, goalShortened: fitted.goalShortened };
}

/** A section's body that is only the note of its cut lines. */
const noteOnlyBody = /^- \(\d+ lines? cut(?:; the session log has them all)?\)$/;

/**
 * The last resort of a fit that is still over `maxTokens` at its least: the sections left with
 * only the note of their cut lines go, heading and note, so the summary is the goal and
 * whatever facts it kept (the log has everything cut).
 */
function withoutNoteOnlySections(
  fitted: FittedSummary,
  maxTokens: number,
  tokens: TokenCounter,
): FittedSummary {
  if (tokens.countText(fitted.text) <= maxTokens) return fitted;
  const sections = parseSummarySections(fitted.text);
  const kept: Sections = new Map();
  for (const name of SUMMARY_SECTIONS) {
    const body = sections[name]?.trim();
    if (body !== undefined && body !== '' && !noteOnlyBody.test(body)) {
      kept.set(name, body.split('\n'));
    }
  }
  return { ...fitted, text: render(kept) };
}

/**
 * The cut for `available`, where a section that cannot use all of its allowance (its next line
 * is larger than what is left of it) leaves the rest to the others.
 */
function settle(
  original: Sections,
  needs: ReadonlyMap<SummarySection, number>,
  available: number,
  sizeOf: (line: string) => number,
  tokens: TokenCounter,
): FittedSummary {
  let granted = allowances(needs, available);
  let result = cutToAllowances(original, granted, sizeOf, tokens);
  for (let round = 0; round < 3; round += 1) {
    const capped = new Map(needs);
    let unused = false;
    for (const [name, allowance] of granted) {
      const used = result.used.get(name) ?? 0;
      if (used < allowance - 4) {
        capped.set(name, used);
        unused = true;
      }
    }
    if (!unused) break;
    granted = allowances(capped, available);
    result = cutToAllowances(original, granted, sizeOf, tokens);
  }
  return result;
}

/** A trail line that lists several facts under one label, and how they are separated. */
const groupedLinePattern =
  /^(- (?:(step \d+(?:, fixed later)?|fixed later)|ids|Identifiers|created|edited|read|used|mentioned): )(.+)$/;

/**
 * The longest head of a grouped line's facts (a whole fact at a time) within `room` tokens, or
 * undefined when the line is not grouped or not even one of its facts fits.
 */
function leadingEntries(
  line: string,
  room: number,
  sizeOf: (line: string) => number,
): string | undefined {
  const match = groupedLinePattern.exec(line);
  if (match === null) return undefined;
  const label = match[1] ?? '';
  const separator = match[2] === undefined ? ', ' : ' | ';
  const entries = (match[3] ?? '').split(separator);
  let best: string | undefined;
  for (let count = 1; count < entries.length; count += 1) {
    const candidate = `${label}${entries.slice(0, count).join(separator)}`;
    if (sizeOf(candidate) > room) break;
    best = candidate;
  }
  return best;
}

function cutToAllowances(
  original: Sections,
  allowance: ReadonlyMap<SummarySection, number>,
  sizeOf: (line: string) => number,
  tokens: TokenCounter,
): FittedSummary & { readonly used: ReadonlyMap<SummarySection, number> } {
  const sections: Sections = new Map();
  const usedBy = new Map<SummarySection, number>();
  const cut: Partial<Record<SummarySection, number>> = {};
  let goalShortened = false;
  for (const [name, lines] of original) {
    const room = allowance.get(name) ?? 0;
    let used = lines.reduce((total, line) => total + sizeOf(line), 0);
    if (used <= room) {
      sections.set(name, lines);
      usedBy.set(name, used);
      continue;
    }
    // The goal keeps its first line (the user's first request); the trail is ranked, best first.
    const head = name === 'Goal' ? lines.slice(0, 1) : [];
    const body = lines.slice(head.length);
    let removed = 0;
    let lastCut: string | undefined;
    while (used > room && body.length > 0) {
      const line = ranked.has(name) ? body.pop() : body.shift();
      used -= sizeOf(line ?? '');
      removed += 1;
      lastCut = line;
    }
    // A ranked line that lists several facts (`- ids: a, b, c`) keeps those at its head that
    // fit the room left, rather than going whole.
    const partial =
      ranked.has(name) && lastCut !== undefined
        ? leadingEntries(lastCut, room - used, sizeOf)
        : undefined;
    if (partial !== undefined) {
      body.push(partial);
      used += sizeOf(partial);
    }
    if (removed > 0) cut[name] = removed;
    // A section of what the agent can re-derive that lost every line is left with its heading
    // alone: on a small summary a note per emptied section costs as much as a fact.
    const emptied = !ranked.has(name) && head.length === 0 && body.length === 0;
    const note = removed > 0 && !emptied ? [cutNote(name, removed)] : [];
    const first = head[0];
    if (first !== undefined && used > room) {
      // The label stays so the next summary still finds (and carries) the goal.
      const label = first.includes(GOAL_LABEL)
        ? first.slice(0, first.indexOf(GOAL_LABEL) + GOAL_LABEL.length + 1)
        : (/^- [^:]*:\s*/.exec(first)?.[0] ?? '- ');
      const shortened = truncateTextToTokens({
        text: first.slice(label.length),
        maxTokens: Math.max(minGoalTokens, room - (used - sizeOf(first)) - 8),
        tokens,
        note: goalCutNote,
        separator: ' ',
      });
      head[0] = `${label}${shortened.replace(/\s+/g, ' ')}`;
      goalShortened = true;
    }
    const kept = ranked.has(name) ? [...head, ...body, ...note] : [...head, ...note, ...body];
    sections.set(name, kept);
    usedBy.set(
      name,
      kept.reduce((total, line) => total + sizeOf(line), 0),
    );
  }
  return { text: render(sections), cut, goalShortened, used: usedBy };
}
