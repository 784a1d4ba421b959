import type { CompactionBudget, CompactionReason } from './types.js';

/** Share of the current estimate a reactive compaction aims at when the budget says it fits. */
export const REACTIVE_TARGET_RATIO = 0.6;

export interface CompactionBudgetForOptions {
  readonly reason: CompactionReason;
  /** The trigger's budget. */
  readonly budget: CompactionBudget;
  /** Our estimate of the transcript now. */
  readonly tokens: number;
}

/**
 * The budget one compaction works to. For a threshold compaction it is the
 * trigger's. After the provider refused a request (`overflow`, `payload_too_large`) our
 * estimate evidently undercounts, so when it claims the transcript already fits, the target
 * drops to a share of the estimate: a retry with an unchanged transcript would only fail again.
 * A refusal also drops the budget's `limitTokens`: the provider has just said that our count
 * of what fits the window is wrong, so only the trigger line counts as fitting.
 *
 * @example
 * ```ts
 * import { compactionBudgetFor } from 'loopkeeper/compaction';
 *
 * // After the provider refused a request, the work budget is below what was sent.
 * const budget = compactionBudgetFor({
 *   reason: 'overflow',
 *   budget: { maxTokens: 100_000, targetTokens: 70_000 },
 *   tokens: 120_000,
 * });
 * console.log(budget.maxTokens, budget.targetTokens);
 * ```
 */
export function compactionBudgetFor({
  reason,
  budget,
  tokens,
}: CompactionBudgetForOptions): CompactionBudget {
  // A refusal, or the host asking: the transcript gets smaller even when our count says it fits.
  if (reason === 'threshold') return budget;
  const { maxTokens } = budget;
  if (tokens > budget.targetTokens) return { maxTokens, targetTokens: budget.targetTokens };
  const targetTokens = Math.floor(tokens * REACTIVE_TARGET_RATIO);
  return { maxTokens: Math.min(maxTokens, tokens), targetTokens };
}
