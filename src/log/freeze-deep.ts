/** Freezes `value` and everything reachable from it, so stored history cannot be edited in place. */
export function freezeDeep<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    // Loops instead of `Object.values`: every stored event passes here, and the array that call
    // allocates per object cost as much as the freezing.
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index += 1) freezeDeep(value[index]);
    } else {
      const record = value as Record<string, unknown>;
      for (const key in record) if (Object.hasOwn(record, key)) freezeDeep(record[key]);
    }
  }
  return value;
}
