import type { Item } from '../../transcript/types.js';
import { CLIPPED_ID_PREFIX } from '../helpers/clip-text.js';
import { requestTokensOf } from '../helpers/known-tokens.js';
import { changedResult, skippedResult } from '../helpers/result.js';
import type { CompactionStrategy } from '../types.js';
import { clipRequest } from './clip-latest-request.js';

/** The share of the target an oversized request is cut to. */
const requestShare = 0.5;

/**
 * Cuts the latest user request when it alone is larger than the compaction's target: no tier
 * can make such a request fit beside anything else, so waiting for the emergency prune to cut it
 * only makes every compaction before that one fail. It keeps half of the target (head and tail
 * verbatim, every path, error line and identifier of the cut part that fits in a note); only
 * the request the model sees is cut, the log keeps the whole one. A request that fits the
 * target is left alone, however long.
 *
 * @example
 * ```ts
 * import { clipOversizedRequest } from 'loopkeeper/compaction';
 * import { createCompactor, pipeline, pruneToolResults, tokenBudgetTrigger } from 'loopkeeper';
 *
 * const compactor = createCompactor({
 *   trigger: tokenBudgetTrigger({ maxTokens: 8_000 }),
 *   strategy: pipeline(pruneToolResults(), clipOversizedRequest()),
 * });
 * ```
 */
export function clipOversizedRequest(): CompactionStrategy {
  return {
    name: 'clipOversizedRequest',
    async apply(request, { tokens, originalOf }) {
      const { transcript, budget } = request;
      let index = transcript.length - 1;
      while (index >= 0 && transcript[index]?.kind !== 'user') index -= 1;
      const current = transcript[index];
      if (current?.kind !== 'user' || tokens.countItem(current) <= budget.targetTokens) {
        return skippedResult(
          transcript,
          tokens,
          'request_fits',
          {},
          requestTokensOf(request, tokens),
        );
      }
      // A copy cut before is cut again only from its original, never through its own note.
      const original = originalOf?.(current);
      if (current.id.startsWith(`${CLIPPED_ID_PREFIX}_`) && original === undefined) {
        return skippedResult(transcript, tokens, 'request_clipped_before');
      }
      const clipped = clipRequest({
        current,
        allowed: Math.floor(budget.targetTokens * requestShare),
        tokens,
        originalOf,
      });
      if (clipped === undefined) return skippedResult(transcript, tokens, 'request_not_clippable');
      const output: Item[] = [...transcript];
      output[index] = clipped;
      return changedResult(transcript, output, tokens, { itemsRemoved: 0, itemsChanged: 1 });
    },
  };
}
