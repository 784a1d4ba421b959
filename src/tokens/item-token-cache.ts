import type { Item } from '../transcript/types.js';

export const DEFAULT_MAX_CACHED_ITEMS = 100_000;

/**
 * Token counts by item id, in two generations: entries land in the young map, and when it is
 * full the old generation is dropped whole and the young one becomes old. A hit costs one
 * lookup (a hit in the old generation moves the entry back to the young one), so counting a
 * long, already counted history does no per-hit reordering. At most `maxEntries` are kept, and
 * at least the newest half of them. Items are immutable, but a replacement view may show an
 * item under its original id with replaced content (a pruned placeholder), so each entry also
 * keeps the item's text length and a changed length is a miss.
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
  const generation = Math.max(1, Math.floor(maxEntries / 2));
  // With room for a single entry there is no second generation to keep.
  const keepOld = generation * 2 <= maxEntries;
  let young = new Map<string, Entry>();
  let old = new Map<string, Entry>();
  const matches = (entry: Entry | undefined, item: Item): entry is Entry =>
    entry !== undefined && entry.kind === item.kind && entry.length === textLength(item);
  const insert = (id: string, entry: Entry): void => {
    if (young.size >= generation && !young.has(id)) {
      old = keepOld ? young : new Map();
      young = new Map();
    }
    young.set(id, entry);
  };
  return {
    get(item) {
      const entry = young.get(item.id);
      if (entry !== undefined) return matches(entry, item) ? entry.tokens : undefined;
      const aged = old.get(item.id);
      if (!matches(aged, item)) return undefined;
      old.delete(item.id);
      insert(item.id, aged);
      return aged.tokens;
    },
    set(item, tokens) {
      old.delete(item.id);
      insert(item.id, { kind: item.kind, length: textLength(item), tokens });
    },
    get size() {
      return young.size + old.size;
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
