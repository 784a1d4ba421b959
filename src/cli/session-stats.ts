import type { SessionEvent } from '../log/events.js';
import { SessionProjection } from '../log/projection.js';
import type { TokenCounter } from '../tokens/types.js';
import type { Item } from '../transcript/types.js';
import type { CompactionTier } from '../vocabulary/index.js';

/** What a session cost and saved, computed from its log alone. */
export interface SessionStats {
  readonly runs: number;
  /** Model requests (inferences) over all runs. */
  readonly steps: number;
  /** Items ever appended: the full history, compacted or not. */
  readonly items: number;
  /** Tokens of the full history now, as if nothing had ever been compacted. */
  readonly fullHistoryTokens: number;
  /**
   * Prompt tokens the model would have been sent without compaction: for every request, its
   * reported prompt with the effective history swapped for the full history at that point.
   */
  readonly tokensSeen: number;
  /** Prompt tokens the provider reported, summed over every request. */
  readonly tokensSent: number;
  readonly compactionsByTier: Readonly<Record<CompactionTier, number>>;
  readonly compactions: number;
  /** The largest effective history any request was built from, in tokens and items. */
  readonly largestEffectiveTokens: number;
  readonly largestEffectiveItems: number;
  /** The largest reported prompt (history plus instructions, tool schemas and formatting). */
  readonly largestPromptTokens: number;
  /** The effective history now. */
  readonly effectiveTokens: number;
  readonly effectiveItems: number;
}

/**
 * Replays a session log through the projection and counts as it goes. The counter caches per
 * item id, so counting the growing history after each event stays cheap.
 */
export function summarizeSession({
  events,
  tokens,
}: {
  events: Iterable<SessionEvent>;
  tokens: TokenCounter;
}): SessionStats {
  const projection = new SessionProjection();
  const fullHistory: Item[] = [];
  const compactionsByTier: Record<CompactionTier, number> = {
    structural: 0,
    summary: 0,
    emergency: 0,
    mutator: 0,
    provider: 0,
  };
  let runs = 0;
  let steps = 0;
  let fullTokens = tokens.count([]);
  let tokensSeen = 0;
  let tokensSent = 0;
  let largestEffectiveTokens = 0;
  let largestEffectiveItems = 0;
  let largestPromptTokens = 0;

  for (const event of events) {
    if (event.type === 'usage-reported') {
      // The usage event precedes the answer it reports, so the projection is the request's history.
      const requestHistory = tokens.count(projection.items);
      const overhead = event.promptTokens - requestHistory;
      steps += 1;
      tokensSent += event.promptTokens;
      tokensSeen += fullTokens + overhead;
      largestEffectiveTokens = Math.max(largestEffectiveTokens, requestHistory);
      largestEffectiveItems = Math.max(largestEffectiveItems, projection.items.length);
      largestPromptTokens = Math.max(largestPromptTokens, event.promptTokens);
    }
    projection.apply(event);
    if (event.type === 'items-appended') {
      fullHistory.push(...event.items);
      fullTokens = tokens.count(fullHistory);
    } else if (event.type === 'transcript-replaced') {
      compactionsByTier[event.tier] += 1;
    } else if (event.type === 'run-started') {
      runs += 1;
    }
  }
  return {
    runs,
    steps,
    items: fullHistory.length,
    fullHistoryTokens: fullTokens,
    tokensSeen,
    tokensSent,
    compactionsByTier,
    compactions: Object.values(compactionsByTier).reduce((sum, count) => sum + count, 0),
    largestEffectiveTokens,
    largestEffectiveItems,
    largestPromptTokens,
    effectiveTokens: tokens.count(projection.items),
    effectiveItems: projection.items.length,
  };
}
