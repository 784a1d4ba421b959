import type { CompactionBudget } from '../types.js';

/**
 * The budget for a trigger line: compaction aims at `targetRatio` of the room the line leaves
 * for items, well under it, so it stays rare. The request's non-item `overhead` (instructions,
 * tool schemas) comes off the line first, because strategies measure the transcript's items
 * only; taking the ratio of what remains keeps the target in proportion when the overhead is a
 * large part of a small window.
 */
export function hysteresisBudget({
  line,
  targetRatio,
  overhead = 0,
  limit,
}: {
  readonly line: number;
  readonly targetRatio: number;
  readonly overhead?: number;
  /** The hard limit above the line (a context window), if there is one. */
  readonly limit?: number;
}): CompactionBudget {
  const budget = {
    maxTokens: Math.max(0, line - overhead),
    targetTokens: Math.max(0, Math.floor((line - overhead) * targetRatio)),
  };
  return limit === undefined || limit <= line
    ? budget
    : { ...budget, limitTokens: Math.max(0, limit - overhead) };
}
