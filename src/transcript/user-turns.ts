import type { ItemRange } from './item-range.js';
import type { Item } from './types.js';

export interface UserTurns {
  /**
   * Everything before the first user item: usually a compaction summary or host notes, and
   * everything when there is no user item at all. Empty (`start === end`) when the transcript
   * opens with a user item.
   */
  readonly leading: ItemRange;
  /** One range per user item, from it up to the next user item (or the end). */
  readonly turns: readonly ItemRange[];
}

/**
 * Splits a transcript at its user items; the ranges cover every index exactly once.
 *
 * @example
 * ```ts
 * import { userTurns } from 'loopkeeper/transcript';
 *
 * const { leading, turns } = userTurns([
 *   { kind: 'context', id: 'c1', text: 'Project notes' },
 *   { kind: 'user', id: 'u1', content: 'First' },
 *   { kind: 'assistant', id: 'a1', text: 'One.' },
 *   { kind: 'user', id: 'u2', content: 'Second' },
 * ]);
 * console.log(leading, turns.length); // {start: 0, end: 1} 2
 * ```
 */
export function userTurns(items: readonly Item[]): UserTurns {
  const starts: number[] = [];
  items.forEach((item, index) => {
    if (item.kind === 'user') starts.push(index);
  });
  const turns = starts.map((start, position) => ({
    start,
    end: starts[position + 1] ?? items.length,
  }));
  return { leading: { start: 0, end: starts[0] ?? items.length }, turns };
}
