import type { Item } from '../../transcript/types.js';

/** A half-open range `[start, end)` of transcript indices. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/**
 * Splits a transcript into spans that can be kept or dropped whole without breaking the tool
 * protocol: an assistant item with tool calls spans to its last result (anything between goes
 * with it, so the span stays contiguous); every other item is a span of its own.
 */
export function atomicSpans(items: readonly Item[]): Span[] {
  const lastResultIndex = new Map<string, number>();
  items.forEach((item, index) => {
    if (item.kind === 'toolResult') lastResultIndex.set(item.callId, index);
  });
  const spans: Span[] = [];
  let index = 0;
  while (index < items.length) {
    const item = items[index] as Item;
    let end = index + 1;
    if (item.kind === 'assistant') {
      for (const call of item.toolCalls ?? []) {
        end = Math.max(end, (lastResultIndex.get(call.id) ?? index) + 1);
      }
    }
    spans.push({ start: index, end });
    index = end;
  }
  return spans;
}

/** How many items at the start are context items (host notes, a previous summary). */
export function leadingContextCount(items: readonly Item[]): number {
  const first = items.findIndex((item) => item.kind !== 'context');
  return first === -1 ? items.length : first;
}

/**
 * Where the latest user turn starts: the last user item. With no user item at all, everything
 * after the leading context counts as the current turn, so nothing the model is working on is
 * ever treated as old.
 */
export function latestTurnStart(items: readonly Item[]): number {
  for (let index = items.length - 1; index >= 0; index -= 1) {
    if (items[index]?.kind === 'user') return index;
  }
  return leadingContextCount(items);
}

/**
 * The turns after the leading context, split at user items. Items before the first user item
 * (and after the leading context) form a turn of their own.
 */
export function turnSpans(items: readonly Item[]): Span[] {
  const spans: Span[] = [];
  let start = leadingContextCount(items);
  for (let index = start + 1; index <= items.length; index += 1) {
    if (index === items.length || items[index]?.kind === 'user') {
      if (index > start) spans.push({ start, end: index });
      start = index;
    }
  }
  return spans;
}
