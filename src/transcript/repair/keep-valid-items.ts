import { isRecord } from '../../vocabulary/schemas/describe-issues.js';
import { checkItem } from '../check-item.js';
import type { Item, Repair } from '../types.js';
import type { Draft } from './draft.js';

/** Drafts of the structurally valid items; every other value is dropped and reported. */
export function keepValidItems(items: readonly unknown[], repairs: Repair[]): Draft[] {
  if (!Array.isArray(items)) {
    repairs.push({ kind: 'dropped_invalid_item', index: 0, message: 'transcript is not an array' });
    return [];
  }
  const drafts: Draft[] = [];
  items.forEach((value: unknown, index) => {
    const problems = checkItem(value, index);
    if (problems.length === 0) {
      drafts.push({ index, item: value as Item });
      return;
    }
    const { id } = isRecord(value) ? value : {};
    repairs.push({
      kind: 'dropped_invalid_item',
      index,
      ...(typeof id === 'string' ? { id } : {}),
      message: `dropped an invalid item: ${problems.map((problem) => problem.message).join('; ')}`,
    });
  });
  return drafts;
}
