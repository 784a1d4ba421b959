import type { TokenCounter } from '../../tokens/types.js';
import type { Item } from '../../transcript/types.js';
import { COMPACTION_SUMMARY_NAME } from '../../transcript/types.js';
import { requireNonNegative } from '../helpers/options.js';
import { leadingContextCount, type Span, turnSpans } from '../helpers/structure.js';
import type { CompactionStrategy } from '../types.js';

export interface EmergencyPruneInput {
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
  readonly leadingContextKept: number;
  readonly leadingContextDropped: number;
}

/**
 * The last resort when a summary failed or was not enough: deterministic, no model involved.
 * Keeps, in this order of priority while they fit in `maxTokens`: the latest user turn
 * (always, even when it alone is too large: then `fits` is false), the leading compaction
 * summary, the other leading context items (host reference material), then whole older turns,
 * newest first, stopping at the first that does not fit so the kept history has no gaps.
 * Whole turns never split a tool exchange, so the output is always protocol-valid.
 */
export function emergencyPruneTranscript({
  transcript,
  tokens,
  maxTokens,
}: EmergencyPruneInput): EmergencyPruneOutcome {
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

  const summaryIndex = transcript
    .slice(0, leadingCount)
    .findIndex((item) => item.kind === 'context' && item.name === COMPACTION_SUMMARY_NAME);
  const keptSummary =
    summaryIndex !== -1 && tryKeep({ start: summaryIndex, end: summaryIndex + 1 });
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

  const output = transcript.filter((_, index) => keep[index]);
  const tokensAfter = tokens.count(output);
  return {
    transcript: output.length === transcript.length ? transcript : output,
    fits: tokensAfter <= maxTokens,
    maxTokens,
    tokensBefore: tokens.count(transcript),
    tokensAfter,
    itemsRemoved: transcript.length - output.length,
    turnsKept,
    turnsDropped: turns.length - turnsKept,
    keptSummary,
    leadingContextKept,
    leadingContextDropped: leadingCount - leadingContextKept - (summaryIndex === -1 ? 0 : 1),
  };
}

export interface EmergencyPruneOptions {
  /** The most tokens to keep; default the request's `budget.targetTokens`. */
  readonly maxTokens?: number;
}

/** `emergencyPruneTranscript` as a strategy; its metadata carries the whole outcome, `fits` included. */
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
          itemsChanged: 0,
          ...(outcome.itemsRemoved === 0
            ? { skipped: outcome.fits ? 'already-fits' : 'latest-turn-too-large' }
            : {}),
        },
      };
    },
  };
}
