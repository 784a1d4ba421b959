import type { TokenCounter } from '../tokens/types.js';
import { truncateTextToTokens } from './summarizers/truncate.js';
import {
  parseSummarySections,
  renderSummarySections,
  SUMMARY_SECTIONS,
  type SummarySection,
} from './summary.js';
import { GOAL_LABEL } from './summary-goal.js';

/**
 * How one summary section is cut to the room it was granted (`fitSummaryText` decides the
 * rooms): the oldest lines first, or the last of a ranked section, a ranked line that lists
 * several facts cut fact by fact, the goal shortened head and tail, and the note of what went.
 */

export interface FittedSummary {
  readonly text: string;
  /** Lines cut, per section. */
  readonly cut: Readonly<Partial<Record<SummarySection, number>>>;
  /** Whether the goal line had to be shortened (its head and tail kept). */
  readonly goalShortened: boolean;
}

export type Sections = Map<SummarySection, string[]>;

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
/** A section's body that is only the note of its cut lines. */
const noteOnlyBody = /^- \(\d+ lines? cut(?:; the session log has them all)?\)$/;

/**
 * The last resort of a fit that is still over `maxTokens` at its least: the sections left with
 * only the note of their cut lines go, heading and note, so the summary is the goal and
 * whatever facts it kept (the log has everything cut).
 */
export function withoutNoteOnlySections(
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

export function cutToAllowances(
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
