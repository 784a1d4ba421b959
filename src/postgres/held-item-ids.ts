import type { SessionEvent } from '../log/events.js';

/**
 * An item id as the `item_ids` column holds it: the JSON text of `[sessionId, id]`. The session
 * in the key lets the item index alone find a session's holders, whatever the planner knows of
 * the table; JSON escapes U+0000, which an id may contain and PostgreSQL text cannot hold, and
 * two keys are equal exactly when session and id are.
 */
export function itemIdKey({
  sessionId,
  id,
}: {
  readonly sessionId: string;
  readonly id: string;
}): string {
  return JSON.stringify([sessionId, id]);
}

/**
 * The keys of the items an event holds, for the `item_ids` column, as a JSON array (a batch's
 * lists differ in length, which one SQL array parameter cannot hold): an `items-appended`
 * event's items, a marker's inline view items, none for other events.
 */
export function heldItemIds({
  sessionId,
  event,
}: {
  readonly sessionId: string;
  readonly event: SessionEvent;
}): string {
  const key = (id: string) => itemIdKey({ sessionId, id });
  if (event.type === 'items-appended')
    return JSON.stringify(event.items.map((item) => key(item.id)));
  if (event.type === 'transcript-replaced') {
    return JSON.stringify(
      event.view.flatMap((entry) => ('item' in entry ? [key(entry.item.id)] : [])),
    );
  }
  return '[]';
}
