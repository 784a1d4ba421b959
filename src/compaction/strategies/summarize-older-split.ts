import type { TokenCounter } from '../../tokens/types.js';
import type { ContextItem, Item } from '../../transcript/types.js';
import { atomicSpans, leadingContextCount } from '../helpers/structure.js';
import { isSummaryItem } from '../summary.js';

export interface SummarySplit {
  /** Earlier summaries found before the cut, folded forward rather than summarized again. */
  readonly previousSummaries: readonly ContextItem[];
  /** Host context items at the start (other than summaries), kept verbatim. */
  readonly keptContext: readonly Item[];
  /** The latest user request when it falls before the cut: kept verbatim, never summarized. */
  readonly pinned: readonly Item[];
  /** The conversation the backend summarizes. */
  readonly toSummarize: readonly Item[];
  /** The recent items kept verbatim. */
  readonly tail: readonly Item[];
}

export interface SplitForSummaryOptions {
  readonly transcript: readonly Item[];
  readonly tokens: TokenCounter;
  readonly keepRecentTokens: number;
  /** Keep at least this many items verbatim at the end (widened to whole tool exchanges). */
  readonly keepRecentItems?: number;
}

/**
 * Where `summarizeOlder` cuts: the tail is the newest atomic spans that fit in
 * `keepRecentTokens`, and always at least the last span (its tool results may be unread) and
 * the last `keepRecentItems` items.
 */
export function splitForSummary({
  transcript,
  tokens,
  keepRecentTokens,
  keepRecentItems = 0,
}: SplitForSummaryOptions): SummarySplit {
  const leading = leadingContextCount(transcript);
  const spans = atomicSpans(transcript);
  let cut = transcript.length;
  let used = 0;
  for (let index = spans.length - 1; index >= 0; index -= 1) {
    const span = spans[index];
    if (span === undefined || span.start < leading) break;
    const cost = tokens.count(transcript.slice(span.start, span.end));
    const itemsKept = transcript.length - cut;
    if (
      cut !== transcript.length &&
      itemsKept >= keepRecentItems &&
      used + cost > keepRecentTokens
    ) {
      break;
    }
    used += cost;
    cut = span.start;
  }

  let latestUser = -1;
  for (let index = transcript.length - 1; index >= 0; index -= 1) {
    if (transcript[index]?.kind === 'user') {
      latestUser = index;
      break;
    }
  }

  const previousSummaries: ContextItem[] = [];
  const keptContext: Item[] = [];
  const pinned: Item[] = [];
  const toSummarize: Item[] = [];
  transcript.slice(0, cut).forEach((item, index) => {
    if (isSummaryItem(item)) previousSummaries.push(item);
    else if (index < leading) keptContext.push(item);
    else if (index === latestUser) pinned.push(item);
    else toSummarize.push(item);
  });
  return { previousSummaries, keptContext, pinned, toSummarize, tail: transcript.slice(cut) };
}
