import type { TokenCounter } from '../../tokens/types.js';
import type { Item } from '../../transcript/types.js';
import { COMPACTION_SUMMARY_NAME } from '../../transcript/types.js';
import { MIN_SUMMARY_TOKENS } from '../compactor-sizes.js';
import { deriveItem } from '../helpers/derived-item.js';
import { requireNonNegative } from '../helpers/options.js';
import { leadingContextCount, type Span, turnSpans } from '../helpers/structure.js';
import { createSummaryItem, summaryBody } from '../summary.js';
import { fitSummaryText } from '../summary-fit.js';
import type { CompactionStrategy } from '../types.js';

export interface EmergencyPruneTranscriptInput {
  readonly transcript: readonly Item[];
  readonly tokens: TokenCounter;
  readonly maxTokens: number;
}

export interface EmergencyPruneOutcome {
  readonly transcript: readonly Item[];
  /** Whether the output holds at most `maxTokens`; false only when the latest turn alone is larger. */
  readonly fits: boolean;
  readonly maxTokens: number;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly itemsRemoved: number;
  readonly turnsKept: number;
  readonly turnsDropped: number;
  readonly keptSummary: boolean;
  /** Whether the summary was cut (section by section) to fit next to the latest turn. */
  readonly summaryTruncated: boolean;
  /** Tokens of the latest turn, which is always kept: the floor of what a request holds. */
  readonly latestTurnTokens: number;
  /** Tokens of the summary as kept (0 without one). */
  readonly summaryTokens: number;
  readonly leadingContextKept: number;
  readonly leadingContextDropped: number;
}

/**
 * The last resort when a summary failed or was not enough: deterministic, no model involved.
 * Keeps, in this order of priority: the latest user turn (always, even when it alone is too
 * large: then `fits` is false), the leading compaction summary (always: it is the only memory
 * of the earlier work, so when it does not fit beside the latest turn it is cut section by
 * section, the goal, files and errors last), then while they fit in `maxTokens` the other
 * leading context items (host reference material) and whole older turns, newest first,
 * stopping at the first that does not fit so the kept history has no gaps.
 * Whole turns never split a tool exchange, so the output is always protocol-valid.
 *
 * @example
 * ```ts
 * import { emergencyPruneTranscript } from 'loopkeeper/compaction';
 * import { createTokenCounter, type Item } from 'loopkeeper';
 *
 * const transcript: Item[] = [
 *   { kind: 'user', id: 'u1', content: 'First request' },
 *   { kind: 'assistant', id: 'a1', text: 'Done.' },
 *   { kind: 'user', id: 'u2', content: 'Second request' },
 * ];
 * const outcome = emergencyPruneTranscript({
 *   transcript,
 *   tokens: await createTokenCounter(),
 *   maxTokens: 30,
 * });
 * console.log(outcome.fits, outcome.turnsKept, outcome.turnsDropped);
 * ```
 */
export function emergencyPruneTranscript({
  transcript,
  tokens,
  maxTokens,
}: EmergencyPruneTranscriptInput): EmergencyPruneOutcome {
  requireNonNegative('emergencyPrune', 'maxTokens', maxTokens);
  const leadingCount = leadingContextCount(transcript);
  const turns = turnSpans(transcript);
  const keep = new Array<boolean>(transcript.length).fill(false);
  // Counts add up per item, so a running total avoids recounting the selection on every try.
  let used = tokens.count([]);
  const spanTokens = (span: Span) =>
    tokens.count(transcript.slice(span.start, span.end)) - tokens.count([]);
  const markSpan = (span: Span, cost = spanTokens(span)) => {
    keep.fill(true, span.start, span.end);
    used += cost;
  };
  const tryKeep = (span: Span): boolean => {
    const cost = spanTokens(span);
    if (used + cost > maxTokens) return false;
    markSpan(span, cost);
    return true;
  };

  const latest = turns.at(-1);
  if (latest !== undefined) markSpan(latest);

  const latestTurnTokens = used - tokens.count([]);
  const summaryIndex = transcript
    .slice(0, leadingCount)
    .findIndex((item) => item.kind === 'context' && item.name === COMPACTION_SUMMARY_NAME);
  let summaryItem = summaryIndex === -1 ? undefined : transcript[summaryIndex];
  let summaryTruncated = false;
  if (summaryItem !== undefined && summaryItem.kind === 'context') {
    const span = { start: summaryIndex, end: summaryIndex + 1 };
    const overhead = tokens.countItem(createSummaryItem(''));
    const room = Math.max(MIN_SUMMARY_TOKENS, maxTokens - used - overhead);
    // A summary within the least room a summary is ever given is kept whole, over budget or not.
    if (!tryKeep(span) && tokens.countItem(summaryItem) - overhead <= room) {
      markSpan(span, tokens.countItem(summaryItem));
    } else if (!keep[summaryIndex]) {
      const fitted = fitSummaryText({ text: summaryBody(summaryItem), maxTokens: room, tokens });
      summaryItem = deriveItem(summaryItem, createSummaryItem(fitted.text));
      summaryTruncated = true;
      keep[summaryIndex] = true;
      used += tokens.countItem(summaryItem);
    }
  }
  const keptSummary = summaryItem !== undefined;
  const summaryTokens = summaryItem === undefined ? 0 : tokens.countItem(summaryItem);
  let leadingContextKept = 0;
  for (let index = 0; index < leadingCount; index += 1) {
    if (index !== summaryIndex && tryKeep({ start: index, end: index + 1 })) {
      leadingContextKept += 1;
    }
  }
  let turnsKept = latest === undefined ? 0 : 1;
  for (let turn = turns.length - 2; turn >= 0; turn -= 1) {
    if (!tryKeep(turns[turn] as Span)) break;
    turnsKept += 1;
  }

  const output = transcript.flatMap((item, index) =>
    !keep[index]
      ? []
      : index === summaryIndex && summaryItem !== undefined
        ? [summaryItem]
        : [item],
  );
  const tokensAfter = tokens.count(output);
  return {
    transcript: output.length === transcript.length && !summaryTruncated ? transcript : output,
    fits: tokensAfter <= maxTokens,
    maxTokens,
    tokensBefore: tokens.count(transcript),
    tokensAfter,
    itemsRemoved: transcript.length - output.length,
    turnsKept,
    turnsDropped: turns.length - turnsKept,
    keptSummary,
    summaryTruncated,
    latestTurnTokens,
    summaryTokens,
    leadingContextKept,
    leadingContextDropped: leadingCount - leadingContextKept - (summaryIndex === -1 ? 0 : 1),
  };
}

export interface EmergencyPruneOptions {
  /** The most tokens to keep; default the request's `budget.targetTokens`. */
  readonly maxTokens?: number;
}

/**
 * `emergencyPruneTranscript` as a strategy; its metadata carries the whole outcome, `fits` included.
 *
 * @example
 * ```ts
 * import {
 *   createCompactor,
 *   emergencyPrune,
 *   pipeline,
 *   pruneToolResults,
 *   tokenBudgetTrigger,
 * } from 'loopkeeper';
 *
 * // A summary-free policy: prune tool output, then keep the newest whole turns that fit.
 * const compactor = createCompactor({
 *   trigger: tokenBudgetTrigger({ maxTokens: 16_000 }),
 *   strategy: pipeline(pruneToolResults(), emergencyPrune({ maxTokens: 12_000 })),
 * });
 * ```
 */
export function emergencyPrune({ maxTokens }: EmergencyPruneOptions = {}): CompactionStrategy {
  if (maxTokens !== undefined) requireNonNegative('emergencyPrune', 'maxTokens', maxTokens);
  return {
    name: 'emergencyPrune',
    async apply({ transcript, budget }, { tokens }) {
      const { transcript: output, ...outcome } = emergencyPruneTranscript({
        transcript,
        tokens,
        maxTokens: maxTokens ?? budget.targetTokens,
      });
      return {
        transcript: output,
        metadata: {
          ...outcome,
          tokensSaved: outcome.tokensBefore - outcome.tokensAfter,
          itemsChanged: outcome.summaryTruncated ? 1 : 0,
          ...(outcome.itemsRemoved === 0 && !outcome.summaryTruncated
            ? { skipped: outcome.fits ? 'already_fits' : 'latest_turn_too_large' }
            : {}),
        },
      };
    },
  };
}
