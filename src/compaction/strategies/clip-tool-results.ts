import type { TokenCounter } from '../../tokens/types.js';
import type { Item, ToolResultItem } from '../../transcript/types.js';
import { clipCapFor } from '../compactor-sizes.js';
import { CLIPPED_ID_PREFIX, clipItemToFit } from '../helpers/clip-text.js';
import { requestTokensOf } from '../helpers/known-tokens.js';
import { requireNonNegative } from '../helpers/options.js';
import { changedResult, skippedResult } from '../helpers/result.js';
import { isPrunedToolResult } from '../helpers/tool-output-placeholder.js';
import type { CompactionStrategy } from '../types.js';

export interface ClipToolResultsOptions {
  /** The most tokens one tool result may take. Default 25% of the request's `budget.targetTokens`. */
  readonly maxTokens?: number;
}

/** Whether `item` is already a clipped copy (clipping it again would only cut the note). */
export function isClipped(item: ToolResultItem): boolean {
  return item.id.startsWith(`${CLIPPED_ID_PREFIX}_`);
}

/** A clipped copy of `item` within `maxTokens`, or undefined when clipping would not save. */
export function clipResult(
  item: ToolResultItem,
  maxTokens: number,
  tokens: TokenCounter,
): ToolResultItem | undefined {
  const size = tokens.countItem(item);
  if (size <= maxTokens) return undefined;
  const { chatShape: _stale, ...rest } = item;
  const clipped = clipItemToFit({
    item,
    text: item.content,
    size,
    maxTokens,
    withText: (content) => ({ ...rest, content }),
    tokens,
  });
  return clipped !== undefined && tokens.countItem(clipped) < size ? clipped : undefined;
}

/**
 * Clips every tool output larger than `maxTokens` to its head and tail, with a note of what
 * was cut (its paths, error lines and identifiers), wherever it is: also the newest output the
 * model has not read yet, since one output larger than a quarter of the budget would otherwise
 * push out all other work. Clipped and pruned outputs are left alone, so it is idempotent.
 *
 * @example
 * ```ts
 * import { clipToolResults } from 'loopkeeper/compaction';
 * import { createCompactor, pipeline, pruneToolResults, tokenBudgetTrigger } from 'loopkeeper';
 *
 * // Cut every tool output above 2k tokens down to a head and a tail.
 * const compactor = createCompactor({
 *   trigger: tokenBudgetTrigger({ maxTokens: 32_000 }),
 *   strategy: pipeline(clipToolResults({ maxTokens: 2_000 }), pruneToolResults()),
 * });
 * ```
 */
export function clipToolResults({ maxTokens }: ClipToolResultsOptions = {}): CompactionStrategy {
  if (maxTokens !== undefined) {
    requireNonNegative('clipToolResults', 'maxTokens', maxTokens, { positive: true });
  }
  return {
    name: 'clipToolResults',
    async apply(request, { tokens }) {
      const { transcript, budget } = request;
      const limit = maxTokens ?? clipCapFor(budget);
      // Copied at the first clip: a pass that clips nothing allocates nothing.
      let output: Item[] | undefined;
      let itemsChanged = 0;
      transcript.forEach((item, index) => {
        if (item.kind !== 'toolResult' || isPrunedToolResult(item) || isClipped(item)) return;
        const clipped = clipResult(item, limit, tokens);
        if (clipped === undefined) return;
        output ??= [...transcript];
        output[index] = clipped;
        itemsChanged += 1;
      });
      if (output === undefined) {
        return skippedResult(
          transcript,
          tokens,
          'nothing_to_clip',
          {},
          requestTokensOf(request, tokens),
        );
      }
      return changedResult(transcript, output, tokens, { itemsRemoved: 0, itemsChanged });
    },
  };
}
