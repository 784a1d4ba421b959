import type { SessionEvent } from '../log/events.js';

/**
 * An item id as the `item_ids` column holds it: its JSON string literal. PostgreSQL text cannot
 * hold U+0000, which an id may contain; the literal escapes it and is equal exactly when the
 * ids are.
 */
export function itemIdKey(id: string): string {
  return JSON.stringify(id);
}

/**
 * The keys of the items an event holds, for the `item_ids` column, as a JSON array (a batch's
 * lists differ in length, which one SQL array parameter cannot hold): an `items-appended`
 * event's items, a marker's inline view items, none for other events.
 */
export function heldItemIds(event: SessionEvent): string {
  if (event.type === 'items-appended') {
    return JSON.stringify(event.items.map((item) => itemIdKey(item.id)));
  }
  if (event.type === 'transcript-replaced') {
    const ids = event.view.flatMap((entry) => ('item' in entry ? [itemIdKey(entry.item.id)] : []));
    return JSON.stringify(ids);
  }
  return '[]';
}
