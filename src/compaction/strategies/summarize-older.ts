import { CompactionError } from '../../errors/compaction-error.js';
import type { Item } from '../../transcript/types.js';
import { requireNonNegative } from '../helpers/options.js';
import { skippedResult } from '../helpers/result.js';
import { atomicSpans } from '../helpers/structure.js';
import { callSummaryBackend } from '../summarizers/call-backend.js';
import { createSummaryChunker, fitPreviousSummary } from '../summarizers/chunk-input.js';
import { createSummaryItem, summaryBody } from '../summary.js';
import type { CompactionStrategy } from '../types.js';
import { splitForSummary } from './summarize-older-split.js';

export interface SummarizeOlderOptions {
  /** Tokens at the end of the transcript kept verbatim. Default 20,000. */
  readonly keepRecentTokens?: number;
  /** Limit on each backend call; it ends the call through its AbortSignal. */
  readonly timeoutMs?: number;
}

/**
 * Summarizes everything before a kept recent tail through `context.backend` and puts one
 * summary item in its place: `[summary, ...leading host context, latest user request?, ...tail]`.
 *
 * - The tail is cut at atomic boundaries, so no tool pair or parallel batch is split, and it
 *   always holds the last exchange, whose results the model may not have read yet.
 * - The latest user request is never summarized away: when it falls before the cut it is kept
 *   verbatim right before the tail, so a long single-turn run can still be compacted.
 * - A previous summary is folded forward (given to the backend as `previousSummary`), never
 *   re-summarized as if it were conversation. Host context at the start stays as it is.
 * - Input larger than the backend's `maxInputTokens` is summarized in chunks, each folding the
 *   summary so far forward, so no backend call is ever given more than its limit.
 *
 * Any failure of the backend (an error, a timeout, empty or sectionless text) is thrown as a
 * `CompactionError` with the cause attached; an abort of `context.signal` as an `AbortedError`.
 */
export function summarizeOlder({
  keepRecentTokens = 20_000,
  timeoutMs,
}: SummarizeOlderOptions = {}): CompactionStrategy {
  requireNonNegative('summarizeOlder', 'keepRecentTokens', keepRecentTokens);
  if (timeoutMs !== undefined) {
    requireNonNegative('summarizeOlder', 'timeoutMs', timeoutMs, { positive: true });
  }
  return {
    name: 'summarizeOlder',
    async apply({ transcript }, { tokens, backend, signal }) {
      if (backend === undefined) {
        throw new CompactionError('summarizeOlder needs a summarizer backend in its context', {
          code: 'no_backend',
        });
      }
      const split = splitForSummary({ transcript, tokens, keepRecentTokens });
      if (split.toSummarize.length === 0) {
        return skippedResult(transcript, tokens, 'nothing-to-summarize');
      }

      const folded = split.previousSummaries.map(summaryBody).join('\n\n').trim();
      let summary: string | undefined = folded === '' ? undefined : folded;
      // How often a summary to fold forward had to be cut to leave room for conversation.
      let summariesTruncated = 0;

      const chunker = createSummaryChunker({
        groups: atomicSpans(split.toSummarize).map(({ start, end }) =>
          split.toSummarize.slice(start, end),
        ),
        maxInputTokens: backend.maxInputTokens,
        tokens,
      });
      let calls = 0;
      let truncatedItems = 0;
      while (!chunker.done()) {
        if (summary !== undefined) {
          const fitted = fitPreviousSummary({
            previousSummary: summary,
            maxInputTokens: backend.maxInputTokens,
            tokens,
          });
          summary = fitted.text;
          if (fitted.truncated) summariesTruncated += 1;
        }
        const chunk = chunker.next(summary);
        truncatedItems += chunk.truncatedItems;
        calls += 1;
        const result = await callSummaryBackend({
          backend,
          transcript: chunk.items,
          previousSummary: summary,
          signal,
          timeoutMs,
        });
        summary = result.text;
      }
      if (summary === undefined) {
        throw new CompactionError('summarizeOlder produced no summary', { code: 'summary_failed' });
      }

      const summaryItem = createSummaryItem(summary);
      const output: Item[] = [summaryItem, ...split.keptContext, ...split.pinned, ...split.tail];
      const tokensBefore = tokens.count(transcript);
      const tokensAfter = tokens.count(output);
      if (tokensAfter >= tokensBefore) {
        return skippedResult(transcript, tokens, 'summary-not-smaller', {
          backend: backend.name,
          calls,
        });
      }
      return {
        transcript: output,
        metadata: {
          backend: backend.name,
          calls,
          itemsSummarized: split.toSummarize.length,
          itemsKept: output.length - 1,
          itemsRemoved: transcript.length - (output.length - 1),
          itemsChanged: 0,
          truncatedItems,
          foldedPreviousSummary: split.previousSummaries.length > 0,
          summariesTruncated,
          keptLatestRequest: split.pinned.length > 0,
          summaryTokens: tokens.countItem(summaryItem),
          tokensBefore,
          tokensAfter,
          tokensSaved: tokensBefore - tokensAfter,
        },
      };
    },
  };
}
