import { requireNonNegative, requireRatio } from '../helpers/options.js';
import type { CompactionTrigger } from '../types.js';
import { hysteresisBudget } from './hysteresis-budget.js';
import { measurePromptTokens } from './measure-prompt-tokens.js';

export interface ItemCountTriggerOptions {
  /** Fire when the transcript holds more than this many items. */
  readonly maxItems: number;
  /** Compaction aims at this share of the current tokens. Default 0.6. */
  readonly targetRatio?: number;
}

/**
 * Fires when the transcript holds more than `maxItems` items. Strategies work in tokens, so
 * the budget is derived from the current size: `maxTokens` is the tokens the items hold now
 * and `targetTokens` is `targetRatio` of that.
 *
 * @example
 * ```ts
 * import { createCompactor, itemCountTrigger, keepRecent } from 'loopkeeper';
 *
 * const compactor = createCompactor({
 *   trigger: itemCountTrigger({ maxItems: 200 }),
 *   strategy: keepRecent({ items: 100 }),
 * });
 * ```
 */
export function itemCountTrigger({
  maxItems,
  targetRatio = 0.6,
}: ItemCountTriggerOptions): CompactionTrigger {
  requireNonNegative('itemCountTrigger', 'maxItems', maxItems, { positive: true, integer: true });
  requireRatio('itemCountTrigger', 'targetRatio', targetRatio);
  return {
    name: 'itemCount',
    evaluate(input) {
      const { tokens, basis, overhead } = measurePromptTokens(input);
      return {
        fire: input.transcript.length > maxItems,
        tokens,
        basis,
        budget: hysteresisBudget({ line: tokens - overhead, targetRatio }),
      };
    },
  };
}
