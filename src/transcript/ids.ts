import { randomUUID } from 'node:crypto';

/**
 * A new, globally unique item id. Ids are assigned once, when an item enters the log.
 *
 * @example
 * ```ts
 * import { createItemId } from 'loopkeeper/transcript';
 * import type { Item } from 'loopkeeper';
 *
 * const note: Item = {
 *   kind: 'context',
 *   id: createItemId('note'),
 *   name: 'memory',
 *   text: 'Prefers tabs.',
 * };
 * console.log(note.id); // 'note_…'
 * ```
 */
export function createItemId(prefix = 'item'): string {
  return `${prefix}_${randomUUID().replaceAll('-', '')}`;
}
