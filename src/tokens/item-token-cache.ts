import type { Item } from '../transcript/types.js';

export const DEFAULT_MAX_CACHED_ITEMS = 100_000;

/**
 * Token counts by item id, least recently used evicted first. Items are immutable, but a
 * replacement view may show an item under its original id with replaced content (a pruned
 * placeholder), so each entry also keeps the item's text length and a changed length is a miss.
 */
export interface ItemTokenCache {
  get(item: Item): number | undefined;
  set(item: Item, tokens: number): void;
  readonly size: number;
}

interface Entry {
  readonly kind: Item['kind'];
  readonly length: number;
  readonly tokens: number;
}

export function createItemTokenCache({
  maxEntries = DEFAULT_MAX_CACHED_ITEMS,
}: {
  readonly maxEntries?: number;
} = {}): ItemTokenCache {
  const entries = new Map<string, Entry>();
  return {
    get(item) {
      const entry = entries.get(item.id);
      if (entry === undefined) return undefined;
      if (entry.kind !== item.kind || entry.length !== textLength(item)) return undefined;
      // Re-inserting moves the entry to the young end of the Map's insertion order.
      entries.delete(item.id);
      entries.set(item.id, entry);
      return entry.tokens;
    },
    set(item, tokens) {
      entries.delete(item.id);
      entries.set(item.id, { kind: item.kind, length: textLength(item), tokens });
      if (entries.size > maxEntries) {
        const oldest = entries.keys().next();
        if (oldest.done !== true) entries.delete(oldest.value);
      }
    },
    get size() {
      return entries.size;
    },
  };
}

/**
 * Total length of the strings a count depends on: O(parts), not O(text). A malformed item
 * yields NaN, which matches no entry, so the counter's own validation reports it.
 */
function textLength(item: Item): number {
  try {
    return unsafeTextLength(item);
  } catch {
    return Number.NaN;
  }
}

function unsafeTextLength(item: Item): number {
  const nameLength = 'name' in item ? (item.name?.length ?? 0) : 0;
  switch (item.kind) {
    case 'user':
      return (
        nameLength +
        (typeof item.content === 'string'
          ? item.content.length
          : item.content.reduce(
              (sum, part) =>
                sum + 1 + (part.type === 'text' ? part.text.length : (part.detail?.length ?? 0)),
              0,
            ))
      );
    case 'assistant':
      return (
        nameLength +
        (item.text?.length ?? 0) +
        (item.reasoning?.reduce((sum, part) => sum + 1 + part.text.length, 0) ?? 0) +
        (item.toolCalls?.reduce(
          (sum, call) => sum + 1 + call.name.length + call.arguments.length,
          0,
        ) ?? 0)
      );
    case 'toolResult':
      return item.content.length;
    case 'context':
      return nameLength + item.text.length;
  }
}
