import { ConfigError } from '../errors/config-error.js';
import type { Item } from '../transcript/types.js';
import {
  assertCountableItem,
  countItemTokens,
  type ItemCountingRules,
  type ItemParts,
} from './count-item.js';
import { createTextCounter } from './count-text.js';
import { derivedItemSource } from './derived-items.js';
import { createItemTokenCache, DEFAULT_MAX_CACHED_ITEMS } from './item-token-cache.js';
import { type LoadedEncoding, loadEncoding } from './load-encoding.js';
import { ITEM_ROLES } from './message-overhead.js';
import type { PartCounts } from './part-counts.js';
import type { TokenCounter, TokenEncoding } from './types.js';

export interface TokenCounterOptions {
  /** o200k_base for gpt-4o, gpt-4.1, gpt-5 and the o-series; cl100k_base for gpt-4 and gpt-3.5. */
  readonly encoding?: TokenEncoding;
  /** Item counts kept (the older half is evicted in bulk); a count is a few dozen bytes. */
  readonly maxCachedItems?: number;
}

/**
 * Loads the encoding (once per process) and returns a synchronous counter. Counts are cached
 * per item id, so recounting a growing session costs only its new items.
 *
 * @example
 * ```ts
 * import { createTokenCounter } from 'loopkeeper';
 *
 * const counter = await createTokenCounter({ encoding: 'o200k_base' });
 * const tokens = counter.count([{ kind: 'user', id: 'u1', content: 'How large is this?' }]);
 * console.log(`${tokens} tokens`);
 * ```
 */
export async function createTokenCounter({
  encoding = 'o200k_base',
  maxCachedItems = DEFAULT_MAX_CACHED_ITEMS,
}: TokenCounterOptions = {}): Promise<TokenCounter> {
  if (!Number.isSafeInteger(maxCachedItems) || maxCachedItems < 1) {
    throw new ConfigError(
      `maxCachedItems must be a positive integer, got ${String(maxCachedItems)}.`,
      { code: 'invalid_cache_size' },
    );
  }
  const { countText, rules, byObject, partsOf } = await coreFor(encoding);
  // By id, per counter: ids are unique within a session only, so this cache is never shared.
  const cache = createItemTokenCache({ maxEntries: maxCachedItems });

  const countItemAt = (item: Item, index: number): number => {
    const known = typeof item === 'object' && item !== null ? byObject.get(item) : undefined;
    if (known !== undefined) return known;
    assertCountableItem(item, index);
    const cached = cache.get(item);
    if (cached !== undefined) {
      byObject.set(item, cached);
      return cached;
    }
    const tokens = countItemTokens({ item, rules, parts: partsOf(item) });
    cache.set(item, tokens);
    byObject.set(item, tokens);
    return tokens;
  };

  return {
    encoding,
    count(items) {
      if (!Array.isArray(items)) {
        throw new ConfigError(`count(items) expects an array of items, got ${typeof items}.`, {
          code: 'invalid_items',
        });
      }
      let tokens = 0;
      for (let index = 0; index < items.length; index += 1) {
        tokens += countItemAt(items[index] as Item, index);
      }
      return tokens;
    },
    countItem(item) {
      return countItemAt(item, 0);
    },
    countText(text) {
      if (typeof text !== 'string') {
        throw new ConfigError(`countText(text) expects a string, got ${typeof text}.`, {
          code: 'invalid_text',
        });
      }
      return countText(text);
    },
  };
}

/**
 * What every counter of one encoding shares: the text counter, the counting rules and the
 * counts kept by item object. All of it depends on the encoding and on the object counted
 * only, never on which session counts it, so a process with a thousand loops keeps one copy.
 */
interface CountingCore {
  readonly countText: (text: string) => number;
  readonly rules: ItemCountingRules;
  /**
   * Items are immutable, so an item object counted once keeps its count for as long as it
   * lives: a hit on the same object is one WeakMap lookup, with no id hashing and no length
   * check. The per-counter id cache still serves other objects with the same id (a log read
   * again).
   */
  readonly byObject: WeakMap<Item, number>;
  readonly partsOf: (item: Item) => ItemParts;
}

const cores = new Map<TokenEncoding, Promise<CountingCore>>();

function coreFor(encoding: TokenEncoding): Promise<CountingCore> {
  let core = cores.get(encoding);
  if (core === undefined) {
    core = loadEncoding({ encoding }).then(buildCore);
    // A failed load is not kept: the next counter tries again.
    core.catch(() => cores.delete(encoding));
    cores.set(encoding, core);
  }
  return core;
}

function buildCore(loaded: LoadedEncoding): CountingCore {
  const countText = rememberLongTexts(createTextCounter(loaded));
  // Per-text counts of the assistant items counted, so their stripped copies are not tokenized
  // again; and of the latest copy made of an item, so a copy made again alike (a placeholder
  // for an output whose pruning was skipped last time) is not tokenized again either.
  const partCounts = new WeakMap<Item, PartCounts>();
  const latestCopyParts = new WeakMap<Item, PartCounts>();
  return {
    countText,
    rules: {
      countText,
      roleTokens: {
        user: countText(ITEM_ROLES.user),
        assistant: countText(ITEM_ROLES.assistant),
        tool: countText(ITEM_ROLES.toolResult),
        system: countText(ITEM_ROLES.context),
      },
    },
    byObject: new WeakMap(),
    partsOf(item) {
      const source = derivedItemSource(item);
      const hasParts =
        item.kind === 'assistant' && (item.reasoning !== undefined || item.toolCalls !== undefined);
      if (source === undefined && !hasParts) return {};
      const record: PartCounts = [];
      if (hasParts) partCounts.set(item, record);
      if (source === undefined) return { record };
      const known = [partCounts.get(source), latestCopyParts.get(source)];
      latestCopyParts.set(source, record);
      return { known, record };
    },
  };
}

/** Texts at least this long have their counts remembered (a summary, its item, its fitting). */
const REMEMBERED_TEXT_LENGTH = 2_048;
/** Up to this length: a multi-megabyte tool output is counted once per item anyway. */
const MAX_REMEMBERED_TEXT_LENGTH = 262_144;
const REMEMBERED_TEXTS = 8;

/**
 * `countText` that remembers the counts of the few latest long texts. A summary is counted as
 * text while it is fitted to its cap and again inside the item that carries it, and a
 * compaction run again writes the same summary; each is a new string with a new id, which the
 * per-item cache cannot know. Looking a string up hashes it once, far cheaper than tokenizing.
 */
function rememberLongTexts(countText: (text: string) => number): (text: string) => number {
  // Made at the first long text: an idle loop's counter that never sees one holds no map.
  let remembered: Map<string, number> | undefined;
  return (text) => {
    if (text.length < REMEMBERED_TEXT_LENGTH || text.length > MAX_REMEMBERED_TEXT_LENGTH) {
      return countText(text);
    }
    remembered ??= new Map();
    const known = remembered.get(text);
    if (known !== undefined) return known;
    const tokens = countText(text);
    if (remembered.size >= REMEMBERED_TEXTS) {
      remembered.delete(remembered.keys().next().value as string);
    }
    remembered.set(text, tokens);
    return tokens;
  };
}
