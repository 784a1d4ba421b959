import type { CompactionBudget } from './types.js';

/**
 * Shares of the budget's target that size every part of a compaction, so the defaults work
 * from a 4k window to 1M with no hand tuning. The summary takes at most 35% of the target
 * (it is the only memory of the older work) and the kept tail the rest; the structural tier protects the newest 40% of the target
 * and skips savings under 5% of it (a small saving is not worth breaking the prompt cache).
 */
export const COMPACTION_SHARES = {
  summary: 0.35,
  protectRecent: 0.4,
  minSavings: 0.05,
} as const;

/** Below this a summary cannot hold its headings and a goal line. */
export const MIN_SUMMARY_TOKENS = 128;

/** The most tokens a summary may take for this budget. */
export function summaryCapFor(budget: CompactionBudget): number {
  return Math.max(MIN_SUMMARY_TOKENS, Math.floor(budget.targetTokens * COMPACTION_SHARES.summary));
}

/** Tokens at the end whose tool output the structural tier never prunes. */
export function protectedTailFor(budget: CompactionBudget): number {
  return Math.floor(budget.targetTokens * COMPACTION_SHARES.protectRecent);
}

/** The smallest saving the structural tier acts on (at most 2,000 tokens). */
export function minSavingsFor(budget: CompactionBudget): number {
  return Math.min(2_000, Math.floor(budget.targetTokens * COMPACTION_SHARES.minSavings));
}
