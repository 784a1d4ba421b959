import { randomUUID } from 'node:crypto';

/** A new, globally unique item id. Ids are assigned once, when an item enters the log. */
export function createItemId(prefix = 'item'): string {
  return `${prefix}_${randomUUID().replaceAll('-', '')}`;
}
