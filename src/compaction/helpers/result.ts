import type { TokenCounter } from '../../tokens/types.js';
import type { Item } from '../../transcript/types.js';
import type { CompactionResult } from '../types.js';

/**
 * The result of a strategy that had nothing worth doing: the input itself, unchanged, with the
 * reason in `metadata.skipped`.
 */
export function skippedResult(
  transcript: readonly Item[],
  tokens: TokenCounter,
  skipped: string,
  details: Record<string, unknown> = {},
): CompactionResult {
  const count = tokens.count(transcript);
  return {
    transcript,
    metadata: {
      ...details,
      itemsRemoved: 0,
      itemsChanged: 0,
      tokensBefore: count,
      tokensAfter: count,
      tokensSaved: 0,
      skipped,
    },
  };
}

/** The result of a strategy that changed the transcript, with the common token figures. */
export function changedResult(
  before: readonly Item[],
  after: readonly Item[],
  tokens: TokenCounter,
  details: { itemsRemoved: number; itemsChanged: number } & Record<string, unknown>,
): CompactionResult {
  const tokensBefore = tokens.count(before);
  const tokensAfter = tokens.count(after);
  return {
    transcript: after,
    metadata: { ...details, tokensBefore, tokensAfter, tokensSaved: tokensBefore - tokensAfter },
  };
}
