import type { Item } from '../transcript/types.js';

/** A changed copy of an item, mapped to the item it was made from. */
const sources = new WeakMap<Item, Item>();

/**
 * Records that `item` is a changed copy of `source` (a strategy's stripped or trimmed copy).
 * A counter that has counted `source` then counts only the copy's changed parts: its unchanged
 * texts are the same strings, so their counts are reused exactly.
 */
export function recordDerivedItem({
  item,
  source,
}: {
  readonly item: Item;
  readonly source: Item;
}): void {
  sources.set(item, source);
}

/** The item `item` was made from, when it is a recorded copy. */
export function derivedItemSource(item: Item): Item | undefined {
  return sources.get(item);
}
