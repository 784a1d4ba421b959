import type { TurnResult } from '../runtime/turn-result.js';
import type { Item } from '../transcript/types.js';
import { jsonBytes } from './limits.js';

/**
 * A run's result that fits one journal entry: when its items are larger than `maxBytes`, the
 * leading items that fit are kept and `itemsOmitted` says how many were left out (they are in
 * the log, read them with `log()`).
 */
export function boundedResult({
  result,
  maxBytes,
}: {
  readonly result: TurnResult;
  readonly maxBytes: number;
}): TurnResult {
  if (jsonBytes(result) <= maxBytes) return result;
  let budget = maxBytes - jsonBytes({ ...result, itemsAdded: [], itemsOmitted: 0 });
  const kept: Item[] = [];
  for (const item of result.itemsAdded) {
    const bytes = jsonBytes(item) + 1;
    if (bytes > budget) break;
    budget -= bytes;
    kept.push(item);
  }
  return { ...result, itemsAdded: kept, itemsOmitted: result.itemsAdded.length - kept.length };
}
