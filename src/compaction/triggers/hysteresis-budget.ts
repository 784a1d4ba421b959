import type { CompactionBudget } from '../types.js';

/**
 * The budget for a trigger line: compaction aims at `targetRatio` of the line, well under it,
 * so it stays rare. Both figures are lowered by the request's non-item `overhead`, because
 * strategies measure the transcript's items only.
 */
export function hysteresisBudget({
  line,
  targetRatio,
  overhead = 0,
}: {
  readonly line: number;
  readonly targetRatio: number;
  readonly overhead?: number;
}): CompactionBudget {
  return {
    maxTokens: Math.max(0, line - overhead),
    targetTokens: Math.max(0, Math.floor(line * targetRatio) - overhead),
  };
}
