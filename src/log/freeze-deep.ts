import { StoreError } from '../errors/index.js';

/**
 * How deeply a stored event may nest objects and arrays. Events are shallow by their schema
 * (items inside arrays inside the event); the limit only stops a forged or corrupt line from
 * overflowing the stack of every reader (here, the projection, the token counter, JSON).
 */
export const MAX_EVENT_NESTING = 1000;

/**
 * Freezes `value` and everything reachable from it, so stored history cannot be edited in place.
 * Throws `StoreError` (`invalid_event`) when it nests deeper than `MAX_EVENT_NESTING`.
 */
export function freezeDeep<T>(value: T, depth = 0): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    if (depth >= MAX_EVENT_NESTING) {
      throw new StoreError(`the event nests deeper than ${MAX_EVENT_NESTING} levels`, {
        code: 'invalid_event',
      });
    }
    Object.freeze(value);
    // Loops instead of `Object.values`: every stored event passes here, and the array that call
    // allocates per object cost as much as the freezing.
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index += 1) freezeDeep(value[index], depth + 1);
    } else {
      const record = value as Record<string, unknown>;
      for (const key in record) if (Object.hasOwn(record, key)) freezeDeep(record[key], depth + 1);
    }
  }
  return value;
}
