import type { TokenCounter } from '../../tokens/types.js';
import type { Item } from '../../transcript/types.js';
import { MIN_SUMMARY_TOKENS } from '../compactor-sizes.js';
import { atomicSpans, latestTurnStart } from '../helpers/structure.js';
import type { ArtifactLedger } from '../ledger/artifact-ledger.js';
import { summaryWithTrail } from '../ledger/trail-section.js';
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
  /** The loop's artifact ledger, rendered into the record; without one, a ledger of `before`. */
  readonly ledger?: ArtifactLedger | undefined;
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
  ledger,
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
  const fitTokens = Math.max(MIN_SUMMARY_TOKENS, room);
  const fitted = fitSummaryText({
    text: summaryWithTrail({
      text,
      ledger,
      items: before.map((item) => originalOf?.(item) ?? item),
      maxTokens: fitTokens,
      tokens,
    }),
    maxTokens: fitTokens,
    tokens,
  });
  return { transcript: [createSummaryItem(fitted.text), ...rest], recorded: dropped.length };
}

export interface FoldOlderStepsOptions {
  readonly transcript: readonly Item[];
  readonly maxTokens: number;
  readonly tokens: TokenCounter;
  readonly originalOf?: ((item: Item) => Item | undefined) | undefined;
  readonly signal: AbortSignal;
  readonly ledger?: ArtifactLedger | undefined;
}

/**
 * For a latest turn too large to keep whole (a long single-request run): keeps its user
 * request and its newest exchange verbatim and folds the steps between into the summary with
 * `recordDroppedTurns`. Returns the input itself when there is nothing between to fold.
 */
export async function foldOlderSteps({
  transcript,
  maxTokens,
  tokens,
  originalOf,
  signal,
  ledger,
}: FoldOlderStepsOptions): Promise<readonly Item[]> {
  const start = latestTurnStart(transcript);
  const turn = transcript.slice(start);
  const spans = atomicSpans(turn);
  const request = turn[0]?.kind === 'user' ? 1 : 0;
  const last = spans.at(-1);
  if (last === undefined || last.start <= request) return transcript;
  const kept = [
    ...transcript.slice(0, start),
    ...turn.slice(0, request),
    ...turn.slice(last.start),
  ];
  const record = await recordDroppedTurns({
    before: transcript,
    kept,
    maxTokens,
    tokens,
    originalOf,
    signal,
    ledger,
  });
  return record.transcript;
}
