import type { TokenCounter } from '../tokens/types.js';
import { truncateTextToTokens } from './summarizers/truncate.js';
import { parseSummarySections, SUMMARY_SECTIONS, type SummarySection } from './summary.js';

/**
 * The order in which sections give up lines when a summary is over its cap: what the agent can
 * re-derive goes first; the goal, the files and the errors (what it cannot) go last.
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
  /** Whether the last line of the goal had to be shortened too. */
  readonly goalShortened: boolean;
}

function render(sections: ReadonlyMap<SummarySection, readonly string[]>): string {
  return SUMMARY_SECTIONS.map((name) => `## ${name}\n${(sections.get(name) ?? []).join('\n')}`)
    .join('\n\n')
    .trim();
}

function cutNote(count: number): string {
  return `- (${count} line${count === 1 ? '' : 's'} cut)`;
}

/** The least a shortened goal keeps, so it still says what the user asked for. */
const minGoalTokens = 48;

/**
 * The summary cut down to `maxTokens`, section by section in `SUMMARY_CUT_ORDER`. Within a
 * section the oldest lines go first and a note says how many; the goal's first line (the
 * user's first request) is the very last thing shortened. Every section heading stays, so the
 * result is still a valid summary.
 */
export function fitSummaryText({ text, maxTokens, tokens }: FitSummaryOptions): FittedSummary {
  if (tokens.countText(text) <= maxTokens) return { text, cut: {}, goalShortened: false };
  const parsed = parseSummarySections(text);
  if (SUMMARY_SECTIONS.every((name) => parsed[name] === undefined)) {
    // Not a sectioned summary (a host's own note): cut as plain text, head and tail kept.
    return {
      text: truncateTextToTokens({ text, maxTokens, tokens }),
      cut: {},
      goalShortened: false,
    };
  }
  const sections = new Map<SummarySection, string[]>(
    SUMMARY_SECTIONS.map((name) => [
      name,
      (parsed[name] ?? '').split('\n').filter((line) => line.trim() !== ''),
    ]),
  );
  const cut: Partial<Record<SummarySection, number>> = {};
  const lineTokens = new Map<string, number>();
  const sizeOf = (line: string): number => {
    let size = lineTokens.get(line);
    if (size === undefined) {
      size = tokens.countText(line) + 1;
      lineTokens.set(line, size);
    }
    return size;
  };
  let total = tokens.countText(render(sections));
  for (const name of SUMMARY_CUT_ORDER) {
    const lines = sections.get(name) ?? [];
    // The goal keeps its first line (the user's first request); other sections keep their note.
    const head = lines.slice(0, name === 'Goal' ? 1 : 0);
    const body = lines.slice(head.length);
    let removed = 0;
    while (total > maxTokens && body.length > 0) {
      // Counts of parts add up to about the count of the whole; the recount below decides.
      while (total > maxTokens && body.length > 0) {
        total -= sizeOf(body.shift() ?? '');
        removed += 1;
      }
      sections.set(name, [...head, cutNote(removed), ...body]);
      total = tokens.countText(render(sections));
    }
    if (removed > 0) cut[name] = removed;
    if (total <= maxTokens) break;
  }
  let goalShortened = false;
  const goal = sections.get('Goal') ?? [];
  const first = goal[0];
  if (total > maxTokens && first !== undefined) {
    // The label stays so the next summary still finds (and carries) the goal.
    const label = /^- [^:]*:\s*/.exec(first)?.[0] ?? '- ';
    const room = Math.max(minGoalTokens, sizeOf(first) - (total - maxTokens) - 8);
    const shortened = truncateTextToTokens({
      text: first.slice(label.length),
      maxTokens: room,
      tokens,
    });
    goal[0] = `${label}${shortened.replace(/\s+/g, ' ')}`;
    goalShortened = true;
  }
  return { text: render(sections), cut, goalShortened };
}
