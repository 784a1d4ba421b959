import type { TokenCounter } from '../tokens/types.js';
import { truncateTextToTokens } from './summarizers/truncate.js';
import {
  isFillerLine,
  parseSummarySections,
  renderSummarySections,
  SUMMARY_SECTIONS,
  type SummarySection,
} from './summary.js';
import {
  cutToAllowances,
  type FittedSummary,
  type Sections,
  withoutNoteOnlySections,
} from './summary-cut.js';

export type { FittedSummary } from './summary-cut.js';

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
