import type { TokenCounter } from '../tokens/types.js';
import type { Item } from '../transcript/types.js';
import { minOutputTokensFor } from './compactor-sizes.js';
import {
  defaultToolOutputPlaceholder,
  preparePrunedCopies,
} from './helpers/tool-output-placeholder.js';
import type { PruneToolResultsOptions } from './strategies/prune-tool-results.js';
import type { CompactionBudget } from './types.js';

interface Seen {
  readonly length: number;
  readonly last: Item;
  readonly tokens: TokenCounter;
}

/**
 * What the structural tier will need of each item, made when the item first reaches the
 * compactor's budget check rather than at the first compaction: the placeholder of each tool
 * output (the facts it quotes) and its token count. A budget check sees the transcript grow at
 * its end, so only the items after the last one seen are prepared; after a compaction replaced
 * the transcript every item is looked at once more, and those prepared before are cache hits.
 * One compactor may serve many loops: what was seen is kept per transcript, keyed by its first
 * item (and held only as long as that item is).
 */
export function createItemPreparer(
  options: PruneToolResultsOptions = {},
): (transcript: readonly Item[], tokens: TokenCounter, budget: CompactionBudget) => void {
  const placeholder = options.placeholder ?? defaultToolOutputPlaceholder;
  const seen = new WeakMap<Item, Seen>();
  return (transcript, tokens, budget) => {
    const first = transcript[0];
    if (first === undefined) return;
    const before = seen.get(first);
    const grown =
      before !== undefined &&
      before.tokens === tokens &&
      transcript.length >= before.length &&
      transcript[before.length - 1] === before.last;
    const start = grown ? before.length : 0;
    if (start < transcript.length) {
      preparePrunedCopies({
        items: transcript.slice(start),
        tokens,
        placeholder,
        minOutputTokens: options.minOutputTokens ?? minOutputTokensFor(budget),
      });
    }
    seen.set(first, { length: transcript.length, last: transcript.at(-1) as Item, tokens });
  };
}
