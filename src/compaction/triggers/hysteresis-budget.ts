import type { CompactionBudget } from '../types.js';

/** A budget whose target sits `targetRatio` of the way to the trigger line, so compaction stays rare. */
export function hysteresisBudget(maxTokens: number, targetRatio: number): CompactionBudget {
  return { maxTokens, targetTokens: Math.floor(maxTokens * targetRatio) };
}
