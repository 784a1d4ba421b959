import type { ItemRange } from './item-range.js';
import type { Item } from './types.js';

/**
 * Splits a transcript into the units that must be kept or dropped together: an assistant
 * item with the block of tool results right after it is one unit (so parallel calls are never
 * split from each other or from their results); every other item is a unit of its own.
 * The ranges are contiguous and cover every index once. On an invalid transcript a stray
 * result joins the unit before it, so no item is ever left out.
 *
 * @example
 * ```ts
 * import { atomicGroups } from 'loopkeeper/transcript';
 *
 * // A tool call and its results form one group: a cut may fall only between groups.
 * const groups = atomicGroups([
 *   { kind: 'user', id: 'u1', content: 'List files' },
 *   { kind: 'assistant', id: 'a1', toolCalls: [{ id: 'c1', name: 'ls', arguments: '{}' }] },
 *   {
 *     kind: 'toolResult',
 *     id: 'r1',
 *     callId: 'c1',
 *     toolName: 'ls',
 *     content: 'a.ts',
 *     isError: false,
 *   },
 * ]);
 * console.log(groups); // [{start: 0, end: 1}, {start: 1, end: 3}]
 * ```
 */
export function atomicGroups(items: readonly Item[]): ItemRange[] {
  const groups: ItemRange[] = [];
  let start = 0;
  for (let index = 1; index <= items.length; index += 1) {
    if (index === items.length || items[index]?.kind !== 'toolResult') {
      groups.push({ start, end: index });
      start = index;
    }
  }
  return groups;
}
