import { recordDerivedItem } from '../../tokens/derived-items.js';
import { createItemId } from '../../transcript/ids.js';
import type { Item } from '../../transcript/types.js';

/** Maps a changed copy to the id of the log item it replaces, for the compaction marker. */
const origins = new WeakMap<Item, string>();

/**
 * A changed copy of an item. It gets a fresh id because token counts are cached per id and an
 * id must always name the same content; the original id stays reachable through `replacedItemId`.
 * Counters learn what it was copied from, so its unchanged texts keep their counts.
 */
export function deriveItem<T extends Item>(original: T, changed: T, idPrefix?: string): T {
  const copy = { ...changed, id: createItemId(idPrefix) };
  origins.set(copy, replacedItemId(original) ?? original.id);
  recordDerivedItem({ item: copy, source: original });
  return copy;
}

/**
 * The id of the original item a strategy's changed copy stands in for (following chains of
 * copies back to the first), or undefined when the item is not such a copy. Compactors use it
 * to write `{item, replaces}` entries into a replacement view.
 */
export function replacedItemId(item: Item): string | undefined {
  return origins.get(item);
}
