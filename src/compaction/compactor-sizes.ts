import type { CompactionBudget } from './types.js';

/**
 * Shares of the budget's target that size every part of a compaction, so the defaults work
 * from a 4k window to 1M with no hand tuning. The summary's text takes 35% of the target plus
 * its frame (it is the only memory of the older work), or more when the kept tail leaves more;
 * the tail takes the rest. The structural tier protects the newest 40% of the target, skips
 * savings under 5% of it (a small saving is not worth breaking the prompt cache) and leaves
 * outputs under 2% of it whole (at most 100 tokens: a placeholder would save little of them);
 * no one tool output keeps more than 25% of it.
 *
 * @example
 * ```ts
 * import { COMPACTION_SHARES } from 'loopkeeper/compaction';
 *
 * // The summary cap and the protected tail a 32k target gets by default.
 * const targetTokens = 32_000;
 * console.log(
 *   targetTokens * COMPACTION_SHARES.summary,
 *   targetTokens * COMPACTION_SHARES.protectRecent,
 * );
 * ```
 */
export const COMPACTION_SHARES = {
  summary: 0.35,
  protectRecent: 0.4,
  minSavings: 0.05,
  minOutput: 0.02,
  clip: 0.25,
} as const;

/** Below this a summary cannot hold its headings and a goal line. */
export const MIN_SUMMARY_TOKENS = 80;

/**
 * What a summary's text spends besides its content: six headings and the notes of lines cut
 * (about 40 to 80 tokens in o200k and cl100k). It comes on top of the summary's share: on a
 * small budget 35% of the target would otherwise go mostly to headings, with no room left for
 * the goal, files and errors.
 */
export const SUMMARY_FRAME_TOKENS = 80;

/**
 * The most tokens a summary's text may take for this budget: its share plus its frame, at most
 * half the target. The summary item adds its preamble.
 */
export function summaryCapFor(budget: CompactionBudget): number {
  const target = budget.targetTokens;
  const share = Math.floor(target * COMPACTION_SHARES.summary) + SUMMARY_FRAME_TOKENS;
  return Math.max(MIN_SUMMARY_TOKENS, Math.min(share, Math.floor(target / 2)));
}

/** Tokens at the end whose tool output the structural tier never prunes. */
export function protectedTailFor(budget: CompactionBudget): number {
  return Math.floor(budget.targetTokens * COMPACTION_SHARES.protectRecent);
}

/** The smallest saving the structural tier acts on (at most 2,000 tokens). */
export function minSavingsFor(budget: CompactionBudget): number {
  return Math.min(2_000, Math.floor(budget.targetTokens * COMPACTION_SHARES.minSavings));
}

/**
 * Tool outputs smaller than this stay whole in the structural tier (2% of the target, at most
 * 100 tokens). The default placeholder alone takes 20 to 30 tokens, so pruning a short output
 * would trade all of its content for a few tokens.
 */
export function minOutputTokensFor(budget: CompactionBudget): number {
  return Math.min(100, Math.floor(budget.targetTokens * COMPACTION_SHARES.minOutput));
}

/** The most tokens one tool output keeps before the structural tier clips it. */
export function clipCapFor(budget: CompactionBudget): number {
  return Math.max(MIN_SUMMARY_TOKENS, Math.floor(budget.targetTokens * COMPACTION_SHARES.clip));
}
