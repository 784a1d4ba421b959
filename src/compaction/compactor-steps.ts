import type { Item } from '../transcript/types.js';
import { replacedItemId } from './helpers/derived-item.js';
import { sameItems } from './helpers/same-items.js';
import { isSummaryItem } from './summary.js';
import type {
  CompactionBudget,
  CompactionResult,
  CompactionStrategy,
  TriggerInput,
} from './types.js';

export function sameTranscript(left: readonly Item[], right: readonly Item[]): boolean {
  return sameItems(left, right);
}

/**
 * The original of each item a strategy changed during this compaction (found in its input by
 * the id the copy stands in for), falling back to what the log knows of older copies.
 */
export function originalsWithin(
  input: readonly Item[],
  logOriginalOf: ((item: Item) => Item | undefined) | undefined,
): (item: Item) => Item | undefined {
  let byId: Map<string, Item> | undefined;
  return (item) => {
    const origin = replacedItemId(item);
    if (origin !== undefined) {
      byId ??= new Map(input.map((entry) => [entry.id, entry]));
      const original = byId.get(origin);
      if (original !== undefined) return logOriginalOf?.(original) ?? original;
    }
    return logOriginalOf?.(item);
  };
}

/**
 * Where a compaction counts as effective: half-way between the target and the trigger line.
 * Landing just under the line would trigger again a step later (thrash), so a result above this
 * goes on to the emergency prune, which aims at the target.
 */
export function headroomLine(budget: CompactionBudget): number {
  return budget.maxTokens - Math.floor((budget.maxTokens - budget.targetTokens) / 2);
}

export function appliedNames(
  strategy: CompactionStrategy,
  before: readonly Item[],
  result: CompactionResult,
): string[] {
  const { applied } = result.metadata;
  if (Array.isArray(applied))
    return applied.filter((name): name is string => typeof name === 'string');
  return sameTranscript(before, result.transcript) ? [] : [strategy.name];
}

/** Whether `after` holds a summary item that `before` did not: the strategy wrote a summary. */
export function addsSummary(before: readonly Item[], after: readonly Item[]): boolean {
  if (sameTranscript(before, after)) return false;
  // Summaries are few: only they are looked up among the items before.
  const summaries = after.filter(isSummaryItem);
  if (summaries.length === 0) return false;
  const earlier = new Set(before);
  return summaries.some((item) => !earlier.has(item));
}

/**
 * The trigger's input for a transcript, with what the caller knows besides it (reported usage,
 * the request's overhead, the mutation point); absent facts are left out.
 */
export function triggerInputOf(known: {
  readonly transcript: TriggerInput['transcript'];
  readonly tokens: TriggerInput['tokens'];
  readonly reported?: TriggerInput['reported'] | undefined;
  readonly overheadTokens?: number | undefined;
  readonly point?: TriggerInput['point'] | undefined;
}): TriggerInput {
  return {
    transcript: known.transcript,
    tokens: known.tokens,
    ...(known.reported === undefined ? {} : { reported: known.reported }),
    ...(known.overheadTokens === undefined ? {} : { overheadTokens: known.overheadTokens }),
    ...(known.point === undefined ? {} : { point: known.point }),
  };
}
