import type { Item } from '../../transcript/types.js';

/** Whether two lists hold the same item objects in the same order (items never change). */
export function sameItems(left: readonly Item[], right: readonly Item[]): boolean {
  if (left === right) return true;
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index += 1) {
    if (left[index] !== right[index]) return false;
  }
  return true;
}
