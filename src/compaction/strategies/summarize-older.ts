import { CompactionError } from '../../errors/compaction-error.js';
import type { TokenCounter } from '../../tokens/types.js';
import type { Item } from '../../transcript/types.js';
import { MIN_SUMMARY_TOKENS, SUMMARY_FRAME_TOKENS, summaryCapFor } from '../compactor-sizes.js';
import { headroomLine } from '../compactor-steps.js';
import { requestTokensOf } from '../helpers/known-tokens.js';
import { requireNonNegative } from '../helpers/options.js';
import { skippedResult } from '../helpers/result.js';
import { leadingContextCount } from '../helpers/structure.js';
import { createLedgerMemo } from '../ledger/ledger-memo.js';
import { createTrailMemo } from '../ledger/trail-memo.js';
import { callSummaryBackend } from '../summarizers/call-backend.js';
import { createSummaryChunker, fitPreviousSummary } from '../summarizers/chunk-input.js';
import { createSummaryItem, summaryBody } from '../summary.js';
import { recordedGoal, withGoal } from '../summary-goal.js';
import type { CompactionBudget, CompactionStrategy } from '../types.js';
import { splitForSummary } from './summarize-older-split.js';
import { userRequestText } from './user-request-text.js';

export interface SummarizeOlderOptions {
  /**
   * Tokens at the end of the transcript kept verbatim. Default: the request's target minus the
   * summary's cap, the leading host context and the latest user request.
   */
  readonly keepRecentTokens?: number;
  /** Keep at least this many items at the end verbatim (the last N items, whatever their size). Default 0. */
  readonly keepRecentItems?: number;
  /** The most tokens the summary may take; longer ones are cut section by section. Default: 35% of the target plus
   * the summary's frame (at most half the target), or more when the kept part leaves more room. */
  readonly maxSummaryTokens?: number;
  /** Limit on each backend call; it ends the call through its AbortSignal. */
  readonly timeoutMs?: number;
}

function defaultKeepRecent(
  transcript: readonly Item[],
  budget: CompactionBudget,
  summaryCap: number,
  countItems: (items: readonly Item[]) => number,
): number {
  const leading = transcript.slice(0, leadingContextCount(transcript));
  let latestUser: Item | undefined;
  for (let index = transcript.length - 1; index >= 0 && latestUser === undefined; index -= 1) {
    if (transcript[index]?.kind === 'user') latestUser = transcript[index];
  }
  const fixed = countItems([...leading, ...(latestUser === undefined ? [] : [latestUser])]);
  return Math.max(0, budget.targetTokens - summaryCap - fixed);
}

/**
 * The least a summary is cut to so that it lands below the headroom line: with only the sections
 * that hold facts sent, a heading and a line, or, when it carries the goal, a heading and a line
 * or two beside as much as a shortened goal keeps. Such a summary drops most of the trail, but
 * the trail is rendered anew from the ledger at the next compaction, so what it drops comes back
 * once there is room; an emergency prune instead cuts the newest output the model has not read.
 */
function leastUnderHeadroom(carriesGoal: boolean): number {
  return carriesGoal ? 48 : 24;
}

/**
 * The default size of the summary beside `keptTokens` of kept items: what the kept part leaves
 * of the target when that is more than the cap (on a small budget that room is what keeps the
 * older errors and identifiers), else the cap, but never so much that the result lands above
 * the headroom line, where it would count as ineffective and fall to the emergency prune.
 */
function summaryRoom(
  budget: CompactionBudget,
  summaryCap: number,
  keptTokens: number,
  tokens: TokenCounter,
  carriesGoal: boolean,
): number {
  // Sizes here are of the summary's text; its item adds the preamble.
  const frame = tokens.countItem(createSummaryItem(''));
  const cap = summaryCap;
  const room = budget.targetTokens - keptTokens - frame;
  const belowHeadroom = headroomLine(budget) - keptTokens - frame;
  if (room >= cap) return Math.max(MIN_SUMMARY_TOKENS, room);
  // Between the least a summary can say (`leastUnderHeadroom`) and
  // the floor, a summary that lands below the headroom line beats one at the floor that lands
  // above it and hands the step to the emergency prune.
  return belowHeadroom >= leastUnderHeadroom(carriesGoal) && belowHeadroom < MIN_SUMMARY_TOKENS
    ? belowHeadroom
    : Math.max(MIN_SUMMARY_TOKENS, Math.min(cap, belowHeadroom));
}

/**
 * Summarizes everything before a kept recent tail through `context.backend` and puts one
 * summary item in its place: `[summary, ...leading host context, latest user request?, ...tail]`.
 *
 * - The tail is cut at atomic boundaries, so no tool pair or parallel batch is split, and it
 *   always holds the last exchange, whose results the model may not have read yet.
 * - The latest user request is never summarized away: when it falls before the cut it is kept
 *   verbatim right before the tail, so a long single-turn run can still be compacted.
 * - The backend reads originals (`context.originalOf`), not the placeholders of pruned output.
 * - The goal (the user's first request) is recorded verbatim, first under `## Goal`, and carried
 *   from summary to summary unchanged, whatever the backend wrote.
 * - A previous summary is folded forward (given to the backend as `previousSummary`), never
 *   re-summarized as if it were conversation. Host context at the start stays as it is.
 * - The summary is capped (`maxSummaryTokens`): a longer one is cut section by section, the
 *   goal, files and errors last.
 * - Input larger than the backend's `maxInputTokens` is summarized in chunks, each folding the
 *   summary so far forward, so no backend call is ever given more than its limit.
 *
 * Any failure of the backend (an error, a timeout, empty or sectionless text) is thrown as a
 * `CompactionError` with the cause attached; an abort of `context.signal` as an `AbortedError`.
 *
 * @example
 * ```ts
 * import {
 *   createCompactor,
 *   extractiveSummarizer,
 *   summarizeOlder,
 *   tokenBudgetTrigger,
 * } from 'loopkeeper';
 *
 * const compactor = createCompactor({
 *   trigger: tokenBudgetTrigger({ maxTokens: 32_000 }),
 *   strategy: summarizeOlder({ keepRecentTokens: 6_000, maxSummaryTokens: 1_500 }),
 *   backend: extractiveSummarizer(),
 * });
 * ```
 */
export function summarizeOlder({
  keepRecentTokens,
  keepRecentItems = 0,
  maxSummaryTokens,
  timeoutMs,
}: SummarizeOlderOptions = {}): CompactionStrategy {
  const owner = 'summarizeOlder';
  if (keepRecentTokens !== undefined) {
    requireNonNegative(owner, 'keepRecentTokens', keepRecentTokens);
  }
  requireNonNegative(owner, 'keepRecentItems', keepRecentItems, { integer: true });
  if (maxSummaryTokens !== undefined) {
    requireNonNegative(owner, 'maxSummaryTokens', maxSummaryTokens, { positive: true });
  }
  if (timeoutMs !== undefined)
    requireNonNegative(owner, 'timeoutMs', timeoutMs, { positive: true });
  const ledgerOfItems = createLedgerMemo();
  const trail = createTrailMemo();
  return {
    name: 'summarizeOlder',
    async apply(request, { tokens, backend, signal, originalOf, ledger, loop }) {
      const { transcript, budget, instructions } = request;
      if (backend === undefined) {
        throw new CompactionError('summarizeOlder needs a summarizer backend in its context', {
          code: 'no_backend',
        });
      }
      // Outside the loop (no session ledger) the trail is that of the items this strategy sees.
      const originalItems = transcript.map((item) => originalOf?.(item) ?? item);
      const itemsLedger = ledger === undefined ? ledgerOfItems(originalItems) : undefined;
      const trailLedger = ledger ?? (itemsLedger as NonNullable<typeof itemsLedger>);
      const summaryCap =
        maxSummaryTokens ??
        trail.capFor({
          baseCap: summaryCapFor(budget),
          targetTokens: budget.targetTokens,
          frameTokens: SUMMARY_FRAME_TOKENS,
          ledger: trailLedger,
          tokens,
          stable: itemsLedger !== undefined,
        });
      const split = splitForSummary({
        transcript,
        tokens,
        keepRecentTokens:
          keepRecentTokens ??
          defaultKeepRecent(transcript, budget, summaryCap, (items) => tokens.count(items)),
        keepRecentItems,
      });
      if (split.toSummarize.length === 0) {
        return skippedResult(transcript, tokens, 'nothing_to_summarize');
      }
      const originals = split.toSummarize.map((item) => originalOf?.(item) ?? item);

      const folded = split.previousSummaries.map(summaryBody).join('\n\n').trim();
      let summary: string | undefined = folded === '' ? undefined : folded;
      const firstRequest = originals.find((item) => item.kind === 'user');
      const goal =
        (summary === undefined ? undefined : recordedGoal(summary)) ??
        (firstRequest === undefined ? undefined : userRequestText(firstRequest));
      // How often a summary to fold forward had to be cut to leave room for conversation.
      let summariesTruncated = 0;

      const chunker = createSummaryChunker({
        items: originals,
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
          instructions,
          maxTokens: summaryCap,
          signal,
          timeoutMs,
          loop,
        });
        summary = goal === undefined || goal === '' ? result.text : withGoal(result.text, goal);
      }
      if (summary === undefined) {
        throw new CompactionError('summarizeOlder produced no summary', { code: 'summary_failed' });
      }
      const kept = [...split.keptContext, ...split.pinned, ...split.tail];
      // A summary must be smaller than what it replaces, or the compaction saves nothing: on a
      // short span the trail gives up its least important lines instead.
      // The split parts the transcript, and a count is the sum of its items' counts.
      const tokensBefore = requestTokensOf(request, tokens);
      const keptTokens = tokens.count(kept);
      const replaced = tokensBefore - keptTokens;
      const carriesGoal = goal !== undefined && goal !== '';
      const fitTokens = Math.min(
        maxSummaryTokens ?? summaryRoom(budget, summaryCap, keptTokens, tokens, carriesGoal),
        Math.max(MIN_SUMMARY_TOKENS, replaced - tokens.countItem(createSummaryItem('')) - 1),
      );
      const fitTo = (maxTokens: number) =>
        trail.fitted({
          text: summary,
          ledger,
          itemsLedger,
          items: originalItems,
          maxTokens,
          tokens,
          kept,
        });
      let fitted = fitTo(fitTokens);
      let summaryItem = createSummaryItem(fitted.text);
      // The item can count a token or two more than its frame and its text apart (where they
      // join): a default-sized summary that lands that much above the headroom line is fitted
      // again, by what it overshot, while that leaves it the least it can say.
      const over = tokens.countItem(summaryItem) + keptTokens - headroomLine(budget);
      if (
        maxSummaryTokens === undefined &&
        over > 0 &&
        fitTokens - over >= leastUnderHeadroom(carriesGoal)
      ) {
        fitted = fitTo(fitTokens - over);
        summaryItem = createSummaryItem(fitted.text);
      }
      const output: Item[] = [summaryItem, ...kept];
      const tokensAfter = tokens.count(output);
      if (tokensAfter >= tokensBefore) {
        return skippedResult(transcript, tokens, 'summary_not_smaller', {
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
          originalsRead: originals.filter((item, index) => item !== split.toSummarize[index])
            .length,
          itemsKept: output.length - 1,
          itemsRemoved: transcript.length - (output.length - 1),
          itemsChanged: 0,
          truncatedItems,
          foldedPreviousSummary: split.previousSummaries.length > 0,
          summariesTruncated,
          keptLatestRequest: split.pinned.length > 0,
          goalRecorded: goal !== undefined && goal !== '',
          summaryCap,
          summaryLinesCut: fitted.cut,
          summaryTokens: tokens.countItem(summaryItem),
          tokensBefore,
          tokensAfter,
          tokensSaved: tokensBefore - tokensAfter,
        },
      };
    },
  };
}
