import { atomicGroups } from '../../transcript/atomic-groups.js';
import type { ItemRange } from '../../transcript/item-range.js';
import type { Item } from '../../transcript/types.js';
import { userTurns } from '../../transcript/user-turns.js';

/** A half-open range `[start, end)` of transcript indices. */
export type Span = ItemRange;

/**
 * Spans that can be kept or dropped whole without breaking the tool protocol: an assistant
 * item with its block of results, every other item alone (the transcript's atomic groups).
 */
export function atomicSpans(items: readonly Item[]): Span[] {
  return atomicGroups(items);
}

/** How many items at the start are context items (host notes, a previous summary). */
export function leadingContextCount(items: readonly Item[]): number {
  const first = items.findIndex((item) => item.kind !== 'context');
  return first === -1 ? items.length : first;
}

/**
 * The turns after the leading context: one per user item. Anything else before the first
 * user item (an assistant step with no request before it) forms a turn of its own, so every
 * non-context item belongs to some turn.
 */
export function turnSpans(items: readonly Item[]): Span[] {
  const { leading, turns } = userTurns(items);
  const context = leadingContextCount(items);
  const preamble = { start: Math.min(context, leading.end), end: leading.end };
  return preamble.start < preamble.end ? [preamble, ...turns] : [...turns];
}

/**
 * Where the latest turn starts: the last user item. With no user item at all, everything after
 * the leading context counts as the current turn, so nothing the model is working on is ever
 * treated as old.
 */
export function latestTurnStart(items: readonly Item[]): number {
  return turnSpans(items).at(-1)?.start ?? items.length;
}
