import type { TokenCounter } from '../../tokens/types.js';
import type { Item } from '../../transcript/types.js';
import { MIN_SUMMARY_TOKENS } from '../compactor-sizes.js';
import { extractiveSummarizer } from '../summarizers/extractive.js';
import { createSummaryItem, isSummaryItem, summaryBody } from '../summary.js';
import { fitSummaryText } from '../summary-fit.js';
import { recordedGoal, withGoal } from '../summary-goal.js';
import { userRequestText } from './user-request-text.js';

export interface RecordDroppedTurnsOptions {
  /** The transcript the emergency prune started from. */
  readonly before: readonly Item[];
  /** What it kept. */
  readonly kept: readonly Item[];
  /** The most tokens the result may hold. */
  readonly maxTokens: number;
  readonly tokens: TokenCounter;
  readonly originalOf?: ((item: Item) => Item | undefined) | undefined;
  readonly signal: AbortSignal;
}

const extract = extractiveSummarizer();

/**
 * Folds a deterministic extract of what an emergency prune dropped (the goal, requests,
 * calls, paths, errors and identifiers, read from the originals) into the leading summary, so
 * the last resort loses turns but not the facts of the work. No model is involved. The record
 * is cut to the room left beside what was kept, never below a minimal summary.
 */
export async function recordDroppedTurns({
  before,
  kept,
  maxTokens,
  tokens,
  originalOf,
  signal,
}: RecordDroppedTurnsOptions): Promise<{ transcript: readonly Item[]; recorded: number }> {
  const keptSet = new Set(kept);
  const dropped = before.filter((item) => !keptSet.has(item) && !isSummaryItem(item));
  if (dropped.length === 0) return { transcript: kept, recorded: 0 };
  const previous = before.find(isSummaryItem);
  const previousSummary = previous === undefined ? undefined : summaryBody(previous);
  const originals = dropped.map((item) => originalOf?.(item) ?? item);
  const firstRequest = originals.find((item) => item.kind === 'user');
  const goal =
    (previousSummary === undefined ? undefined : recordedGoal(previousSummary)) ??
    (firstRequest === undefined ? undefined : userRequestText(firstRequest));
  const result = await extract.summarize({
    transcript: originals,
    signal,
    ...(previousSummary === undefined ? {} : { previousSummary }),
  });
  const text = goal === undefined || goal === '' ? result.text : withGoal(result.text, goal);
  const rest = kept.filter((item) => !isSummaryItem(item));
  const room = maxTokens - tokens.count(rest) - tokens.countItem(createSummaryItem(''));
  const fitted = fitSummaryText({ text, maxTokens: Math.max(MIN_SUMMARY_TOKENS, room), tokens });
  return { transcript: [createSummaryItem(fitted.text), ...rest], recorded: dropped.length };
}
