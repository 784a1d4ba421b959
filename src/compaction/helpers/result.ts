import type { TokenCounter } from '../../tokens/types.js';
import type { Item } from '../../transcript/types.js';
import type { CompactionResult } from '../types.js';
import { resultWithKnownTokens } from './known-tokens.js';

/**
 * The result of a strategy that had nothing worth doing: the input itself, unchanged, with the
 * reason in `metadata.skipped`. `tokensBefore` is `tokens.count(transcript)` when the strategy
 * already has it.
 */
export function skippedResult(
  transcript: readonly Item[],
  tokens: TokenCounter,
  skipped: string,
  details: Record<string, unknown> = {},
  tokensBefore: number = tokens.count(transcript),
): CompactionResult {
  return resultWithKnownTokens(
    {
      transcript,
      metadata: {
        ...details,
        itemsRemoved: 0,
        itemsChanged: 0,
        tokensBefore,
        tokensAfter: tokensBefore,
        tokensSaved: 0,
        skipped,
      },
    },
    tokens,
    tokensBefore,
  );
}

/**
 * The result of a strategy that changed the transcript, with the common token figures. A
 * strategy that knows them (the total it was given, less what each change saved) passes them
 * in `known` instead of having both transcripts counted.
 */
export function changedResult(
  before: readonly Item[],
  after: readonly Item[],
  tokens: TokenCounter,
  details: { itemsRemoved: number; itemsChanged: number } & Record<string, unknown>,
  known?: { readonly tokensBefore: number; readonly tokensAfter: number },
): CompactionResult {
  const tokensBefore = known?.tokensBefore ?? tokens.count(before);
  const tokensAfter = known?.tokensAfter ?? tokens.count(after);
  return resultWithKnownTokens(
    {
      transcript: after,
      metadata: { ...details, tokensBefore, tokensAfter, tokensSaved: tokensBefore - tokensAfter },
    },
    tokens,
    tokensAfter,
  );
}
