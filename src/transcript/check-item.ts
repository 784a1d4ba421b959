import { isRecord, shapeProblems } from '../vocabulary/schemas/describe-issues.js';
import { ItemSchema } from '../vocabulary/schemas/item.js';
import type { ProtocolProblem } from './types.js';

/**
 * Structural problems of one value that claims to be an `Item`, by `ItemSchema`: wrong type,
 * unknown kind, missing id, fields of the wrong type, provider data JSON cannot hold. Every
 * problem has kind `invalid_item` and carries the index, and the id when the item has one.
 * Unknown extra fields are allowed so that items written by a newer version still load.
 */
export function checkItem(value: unknown, index: number): ProtocolProblem[] {
  if (isRecord(value) && passed.has(value)) return [];
  const problems = shapeProblems(ItemSchema, value, 'item');
  if (problems.length === 0) return problems as [];
  const { id } = isRecord(value) ? value : {};
  const known = typeof id === 'string' && id !== '' ? { id } : {};
  return problems.map((message) => ({ index, ...known, kind: 'invalid_item', message }));
}

/** Frozen items known to pass `checkItem`: checking one again would find the same nothing. */
const passed = new WeakSet<object>();

/**
 * Remembers `item` as one that passes `checkItem`, so later checks of the same object (the
 * token counter's, a later append's) skip the schema. Only a deep-frozen item is remembered:
 * the log's own copies of items checked before they were appended are, and nothing can change
 * them afterwards.
 */
export function rememberCheckedItem(item: object): void {
  if (Object.isFrozen(item)) passed.add(item);
}
