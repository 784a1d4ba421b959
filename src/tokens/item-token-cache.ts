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
  return new GenerationalCache(maxEntries);
}

/** The two generations, made at the first entry: an idle loop's counter holds no map. */
class GenerationalCache implements ItemTokenCache {
  readonly #generation: number;
  /** With room for a single entry there is no second generation to keep. */
  readonly #keepOld: boolean;
  #young: Map<string, Entry> | undefined;
  #old: Map<string, Entry> | undefined;

  constructor(maxEntries: number) {
    this.#generation = Math.max(1, Math.floor(maxEntries / 2));
    this.#keepOld = this.#generation * 2 <= maxEntries;
  }

  get(item: Item): number | undefined {
    const entry = this.#young?.get(item.id);
    if (entry !== undefined) return matches(entry, item) ? entry.tokens : undefined;
    const aged = this.#old?.get(item.id);
    if (!matches(aged, item)) return undefined;
    this.#old?.delete(item.id);
    this.#insert(item.id, aged);
    return aged.tokens;
  }

  set(item: Item, tokens: number): void {
    this.#old?.delete(item.id);
    this.#insert(item.id, { kind: item.kind, length: textLength(item), tokens });
  }

  get size(): number {
    return (this.#young?.size ?? 0) + (this.#old?.size ?? 0);
  }

  #insert(id: string, entry: Entry): void {
    this.#young ??= new Map();
    const young = this.#young;
    if (young.size >= this.#generation && !young.has(id)) {
      this.#old = this.#keepOld ? young : undefined;
      this.#young = new Map([[id, entry]]);
      return;
    }
    young.set(id, entry);
  }
}

function matches(entry: Entry | undefined, item: Item): entry is Entry {
  return entry !== undefined && entry.kind === item.kind && entry.length === textLength(item);
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
