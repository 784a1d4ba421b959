import { ConfigError } from '../../errors/config-error.js';
import type { Item, ItemKind } from '../../transcript/types.js';
import { ITEM_KINDS } from '../../transcript/types.js';
import { requireNonNegative } from '../helpers/options.js';
import { changedResult, skippedResult } from '../helpers/result.js';
import { atomicSpans, latestTurnStart, type Span } from '../helpers/structure.js';
import type { CompactionStrategy } from '../types.js';

interface KeepRecentCommon {
  /**
   * Kinds kept wherever they are (for example a leading summary or host notes). An item of a
   * preserved kind that belongs to a tool exchange keeps its whole exchange. Default `['context']`.
   */
  readonly preserve?: readonly ItemKind[];
}

/**
 * Keep the last `items` items that are not of a preserved kind (preserved items never count
 * toward the number), or the last `tokens`
 * tokens (counted per item, preserved items in the tail included, since they take room).
 */
export type KeepRecentOptions =
  | (KeepRecentCommon & { readonly items: number; readonly tokens?: undefined })
  | (KeepRecentCommon & { readonly tokens: number; readonly items?: undefined });

/**
 * Keeps the most recent part of the transcript and drops the rest. The cut moves back to the
 * start of any tool exchange it would split (an assistant item with its results, parallel
 * calls together), so the tail may be a little larger than asked. Items of preserved kinds are
 * kept in place. The latest user item is always kept: when the cut falls inside the latest
 * turn, that user item stays in front of the kept tail, so the model still sees the request it
 * is working on while the older steps of the same turn go.
 *
 * @example
 * ```ts
 * import { createCompactor, keepRecent, tokenBudgetTrigger } from 'loopkeeper';
 *
 * // Keep the last 4k tokens of history (whole tool exchanges), and every context item.
 * const compactor = createCompactor({
 *   trigger: tokenBudgetTrigger({ maxTokens: 16_000 }),
 *   strategy: keepRecent({ tokens: 4_000, preserve: ['context'] }),
 * });
 * ```
 */
export function keepRecent(options: KeepRecentOptions): CompactionStrategy {
  const { preserve = ['context'] } = options;
  validate(options, preserve);
  const preserved = new Set(preserve);
  return {
    name: 'keepRecent',
    async apply({ transcript }, { tokens }) {
      const spans = atomicSpans(transcript);
      const requestedCut =
        options.items === undefined
          ? tokenCut(transcript, (item) => tokens.countItem(item), options.tokens)
          : itemCut(transcript, (item) => preserved.has(item.kind), options.items);
      const cut = expandCut(spans, requestedCut);
      const latestUser = latestUserIndex(transcript);

      const kept: Item[] = [];
      for (const span of spans) {
        const slice = transcript.slice(span.start, span.end);
        const keep =
          span.start >= cut ||
          (latestUser >= span.start && latestUser < span.end) ||
          slice.some((item) => preserved.has(item.kind));
        if (keep) kept.push(...slice);
      }
      const itemsRemoved = transcript.length - kept.length;
      if (itemsRemoved === 0) return skippedResult(transcript, tokens, 'everything_recent');
      return changedResult(transcript, kept, tokens, {
        itemsRemoved,
        itemsChanged: 0,
        cutIndex: cut,
        cutExpandedBy: requestedCut - cut,
      });
    },
  };
}

function validate(options: KeepRecentOptions, preserve: readonly ItemKind[]): void {
  const hasItems = options.items !== undefined;
  const hasTokens = options.tokens !== undefined;
  if (hasItems === hasTokens) {
    throw new ConfigError('keepRecent: give exactly one of `items` or `tokens`');
  }
  if (hasItems) {
    requireNonNegative('keepRecent', 'items', options.items as number, { integer: true });
  } else {
    requireNonNegative('keepRecent', 'tokens', options.tokens as number);
  }
  for (const kind of preserve) {
    if (!ITEM_KINDS.includes(kind)) {
      throw new ConfigError(`keepRecent: preserve lists an unknown item kind ${String(kind)}`);
    }
  }
}

/** The index where the last items whose tokens fit in `budget` begin. */
function tokenCut(
  transcript: readonly Item[],
  cost: (item: Item) => number,
  budget: number,
): number {
  let cut = transcript.length;
  let used = 0;
  while (cut > 0) {
    const next = used + cost(transcript[cut - 1] as Item);
    if (next > budget) break;
    used = next;
    cut -= 1;
  }
  return cut;
}

/** The index where the last `count` items not of a preserved kind begin. */
function itemCut(
  transcript: readonly Item[],
  isPreserved: (item: Item) => boolean,
  count: number,
): number {
  let cut = transcript.length;
  let kept = 0;
  while (cut > 0 && kept < count) {
    cut -= 1;
    if (!isPreserved(transcript[cut] as Item)) kept += 1;
  }
  return cut;
}

/** Moves a cut that falls inside a tool exchange back to that exchange's start. */
function expandCut(spans: readonly Span[], cut: number): number {
  const inside = spans.find((span) => span.start < cut && cut < span.end);
  return inside === undefined ? cut : inside.start;
}

function latestUserIndex(transcript: readonly Item[]): number {
  const start = latestTurnStart(transcript);
  return transcript[start]?.kind === 'user' ? start : -1;
}
