export { describeValue } from '../vocabulary/schemas/describe-issues.js';

/** A plain object (not null, not an array): the only thing that can be an item or a message. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
