import { sliceText } from './code-points.js';

/** A plain object (not null, not an array): the only thing that can be an item or a message. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short description of a value for error messages, without dumping large content. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') {
    return value.length > 40 ? `string '${sliceText(value, 0, 40)}...'` : `string '${value}'`;
  }
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'undefined') return 'nothing';
  return `${typeof value} ${String(value)}`;
}
