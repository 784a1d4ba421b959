import type { Item } from '../../transcript/types.js';
import type { TriggerInput } from '../types.js';

export interface PromptTokens {
  /** Tokens the next request holds. */
  readonly tokens: number;
  readonly basis: 'reported' | 'estimate';
  /**
   * Tokens of the request that are not items (instructions, tool schemas, formatting), as seen
   * in reported usage, or on the estimate basis as the caller last measured it (else 0). Strategies count items only, so budgets are
   * lowered by this much to mean the same line.
   */
  readonly overhead: number;
}

/**
 * Tokens the next request will hold. With provider-reported usage for the first `itemCount`
 * items it is that figure plus our estimate of the items added since: the provider's number
 * includes what we cannot see (tool schemas, formatting). A report covering more items than
 * the transcript holds is stale (the transcript was compacted since), so the estimate is used.
 */
export function measurePromptTokens({
  transcript,
  tokens,
  reported,
  estimatedTokens,
  overheadTokens,
}: TriggerInput): PromptTokens {
  if (
    reported !== undefined &&
    Number.isFinite(reported.promptTokens) &&
    reported.promptTokens >= 0 &&
    Number.isInteger(reported.itemCount) &&
    reported.itemCount >= 0 &&
    reported.itemCount <= transcript.length
  ) {
    let added = 0;
    for (const item of transcript.slice(reported.itemCount)) {
      added += tokens.countItem(item as Item);
    }
    // A count is the sum of its items' counts, so a known total gives the covered part for free.
    const covered =
      estimatedTokens === undefined
        ? tokens.count(transcript.slice(0, reported.itemCount))
        : estimatedTokens - added;
    return {
      tokens: reported.promptTokens + added,
      basis: 'reported',
      overhead: Math.max(0, reported.promptTokens - covered),
    };
  }
  const overhead =
    overheadTokens !== undefined && Number.isFinite(overheadTokens) && overheadTokens > 0
      ? Math.floor(overheadTokens)
      : 0;
  return {
    tokens: (estimatedTokens ?? tokens.count(transcript)) + overhead,
    basis: 'estimate',
    overhead,
  };
}
