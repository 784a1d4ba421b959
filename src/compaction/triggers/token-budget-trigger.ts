import { requireNonNegative, requireRatio } from '../helpers/options.js';
import type { CompactionTrigger } from '../types.js';
import { hysteresisBudget } from './hysteresis-budget.js';
import { measurePromptTokens } from './measure-prompt-tokens.js';

export interface TokenBudgetTriggerOptions {
  /** Fire when the next prompt would hold more than this many tokens. Default 60,000. */
  readonly maxTokens?: number;
  /** Compaction aims at this share of `maxTokens`. Default 0.6. */
  readonly targetRatio?: number;
}

/**
 * Fires when the next prompt would exceed a fixed token budget. On the reported basis the
 * budget handed to strategies is lowered by what the request holds besides items
 * (instructions, tool schemas), since strategies can only shrink the items.
 *
 * @example
 * ```ts
 * import { createCompactor, extractiveSummarizer, tokenBudgetTrigger } from 'loopkeeper';
 *
 * // Compact above 50k prompt tokens, aiming at 60% of that.
 * const compactor = createCompactor({
 *   trigger: tokenBudgetTrigger({ maxTokens: 50_000, targetRatio: 0.6 }),
 *   backend: extractiveSummarizer(),
 * });
 * ```
 */
export function tokenBudgetTrigger({
  maxTokens = 60_000,
  targetRatio = 0.6,
}: TokenBudgetTriggerOptions = {}): CompactionTrigger {
  requireNonNegative('tokenBudgetTrigger', 'maxTokens', maxTokens, {
    positive: true,
    integer: true,
  });
  requireRatio('tokenBudgetTrigger', 'targetRatio', targetRatio);
  return {
    name: 'tokenBudget',
    evaluate(input) {
      const { tokens, basis, overhead } = measurePromptTokens(input);
      const budget = hysteresisBudget({ line: maxTokens, targetRatio, overhead });
      return { fire: tokens > maxTokens, tokens, basis, budget };
    },
  };
}
