import type { Item } from '../transcript/types.js';
import type { TranscriptReplacedEvent } from './events.js';

/**
 * The originals of the items a replacement view put in place of others (a pruned tool result
 * stands in for its full output), for the items of the new history only. A summary written
 * later reads the originals, not the placeholders, so what pruning hid is not lost to it.
 * Chains collapse to the first original: a placeholder replacing a placeholder maps to the
 * output both stand in for.
 */
export function replacedOriginals({
  event,
  covered,
  previous,
}: {
  readonly event: TranscriptReplacedEvent;
  /** The history the marker replaces. */
  readonly covered: readonly Item[];
  /** The originals known before this marker. */
  readonly previous: ReadonlyMap<string, Item>;
}): Map<string, Item> {
  const next = new Map<string, Item>();
  let coveredById: Map<string, Item> | undefined;
  for (const entry of event.view) {
    if ('ref' in entry) {
      const original = previous.get(entry.ref);
      if (original !== undefined) next.set(entry.ref, original);
    } else if (entry.replaces !== undefined) {
      coveredById ??= new Map(covered.map((item) => [item.id, item]));
      const original = previous.get(entry.replaces) ?? coveredById.get(entry.replaces);
      if (original !== undefined) next.set(entry.item.id, original);
    }
  }
  return next;
}
