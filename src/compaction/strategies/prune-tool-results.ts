import type { Item } from '../../transcript/types.js';
import { minOutputTokensFor, minSavingsFor, protectedTailFor } from '../compactor-sizes.js';
import { requestTokensOf } from '../helpers/known-tokens.js';
import { requireNonNegative } from '../helpers/options.js';
import { protectedTailStart } from '../helpers/protected-tail.js';
import { changedResult, skippedResult } from '../helpers/result.js';
import {
  defaultToolOutputPlaceholder,
  pruneToolOutput,
  type ToolOutputPlaceholder,
} from '../helpers/tool-output-placeholder.js';
import type { CompactionStrategy } from '../types.js';

export interface PruneToolResultsOptions {
  /**
   * Tokens at the end of the transcript whose tool output is never pruned. Default 40% of the
   * request's `budget.targetTokens`.
   */
  readonly protectRecentTokens?: number;
  /** Do nothing unless pruning saves at least this many tokens. Default 5% of the target, at most 2,000. */
  readonly minSavingsTokens?: number;
  /**
   * Outputs smaller than this many tokens (their message overhead included) are left whole: a
   * placeholder would save little of them and lose all of their content. Default 2% of the
   * request's `budget.targetTokens`, at most 100.
   */
  readonly minOutputTokens?: number;
  /** Text that replaces the output; by default it says how large it was and to re-run the tool. */
  readonly placeholder?: ToolOutputPlaceholder;
}

/**
 * Replaces old tool output (outside the protected recent tail) with a short placeholder. The
 * result keeps its call id, tool name and error flag, so the tool protocol is untouched and
 * the model knows what it ran. Results already pruned are left alone, so running it twice is
 * the same as running it once. Skips entirely when the saving would be below `minSavingsTokens`:
 * a small saving is not worth invalidating the provider's prompt cache.
 *
 * @example
 * ```ts
 * import { createCompactor, pruneToolResults, tokenBudgetTrigger } from 'loopkeeper';
 *
 * const compactor = createCompactor({
 *   trigger: tokenBudgetTrigger({ maxTokens: 32_000 }),
 *   strategy: pruneToolResults({ protectRecentTokens: 6_000, minSavingsTokens: 1_000 }),
 * });
 * ```
 */
export function pruneToolResults({
  protectRecentTokens,
  minSavingsTokens,
  minOutputTokens,
  placeholder = defaultToolOutputPlaceholder,
}: PruneToolResultsOptions = {}): CompactionStrategy {
  if (protectRecentTokens !== undefined) {
    requireNonNegative('pruneToolResults', 'protectRecentTokens', protectRecentTokens);
  }
  if (minSavingsTokens !== undefined) {
    requireNonNegative('pruneToolResults', 'minSavingsTokens', minSavingsTokens);
  }
  if (minOutputTokens !== undefined) {
    requireNonNegative('pruneToolResults', 'minOutputTokens', minOutputTokens);
  }
  return {
    name: 'pruneToolResults',
    async apply(request, { tokens }) {
      const { transcript, budget } = request;
      const protect = protectRecentTokens ?? protectedTailFor(budget);
      const minSavings = minSavingsTokens ?? minSavingsFor(budget);
      const minOutput = minOutputTokens ?? minOutputTokensFor(budget);
      const boundary = protectedTailStart(transcript, tokens, protect);
      const output: Item[] = [...transcript];
      let itemsChanged = 0;
      let savings = 0;
      for (let index = 0; index < boundary; index += 1) {
        const item = transcript[index] as Item;
        // A cached count: sizing an output that stays whole costs a lookup, no placeholder.
        if (item.kind !== 'toolResult' || tokens.countItem(item) < minOutput) continue;
        const pruned = pruneToolOutput(item, placeholder, tokens);
        if (pruned === undefined) continue;
        output[index] = pruned.item;
        itemsChanged += 1;
        savings += pruned.saved;
      }
      const tokensBefore = requestTokensOf(request, tokens);
      if (itemsChanged === 0) {
        return skippedResult(transcript, tokens, 'nothing_to_prune', {}, tokensBefore);
      }
      if (savings < minSavings) {
        return skippedResult(
          transcript,
          tokens,
          'below_min_savings',
          { potentialSavingsTokens: savings },
          tokensBefore,
        );
      }
      return changedResult(
        transcript,
        output,
        tokens,
        { itemsRemoved: 0, itemsChanged },
        { tokensBefore, tokensAfter: tokensBefore - savings },
      );
    },
  };
}
