import type { TokenCounter } from '../../tokens/types.js';
import type { Item } from '../../transcript/types.js';
import { sameItems } from '../helpers/same-items.js';
import { type FittedSummary, fitSummaryText } from '../summary-fit.js';
import type { ArtifactLedger } from './artifact-ledger.js';
import { summaryCapForTrail, summaryWithTrail } from './trail-section.js';

/**
 * `summaryCapForTrail` and the fitted summary with its trail (`summaryWithTrail`, then
 * `fitSummaryText`), each remembering its latest result for a ledger that no longer changes
 * (one `createLedgerMemo` made of the items): a compaction run again over the same items renders
 * and counts the same trail, so it gets the latest result back. Every input is part of the
 * key (the ledger and the kept items as objects, the text, the sizes, the counter), so a result
 * is never one of another summary or budget. A loop's ledger grows with the session, so a
 * result made from it is never remembered.
 */
export function createTrailMemo(): {
  readonly capFor: (
    options: Parameters<typeof summaryCapForTrail>[0] & { readonly stable: boolean },
  ) => number;
  readonly fitted: (options: {
    readonly text: string;
    /** The loop's ledger, or undefined. */
    readonly ledger: ArtifactLedger | undefined;
    /** The ledger of `items` (from `createLedgerMemo`) when there is no loop ledger. */
    readonly itemsLedger: ArtifactLedger | undefined;
    readonly items: readonly Item[];
    readonly maxTokens: number;
    readonly tokens: TokenCounter;
    readonly kept: readonly Item[];
  }) => FittedSummary;
} {
  let latestCap:
    | {
        readonly ledger: ArtifactLedger;
        readonly baseCap: number;
        readonly targetTokens: number;
        readonly frameTokens: number;
        readonly tokens: TokenCounter;
        readonly cap: number;
      }
    | undefined;
  let latestFit:
    | {
        readonly text: string;
        readonly ledger: ArtifactLedger;
        readonly maxTokens: number;
        readonly tokens: TokenCounter;
        readonly kept: readonly Item[];
        readonly fitted: FittedSummary;
      }
    | undefined;
  return {
    capFor({ stable, ...options }) {
      const known = latestCap;
      if (
        stable &&
        known !== undefined &&
        known.ledger === options.ledger &&
        known.baseCap === options.baseCap &&
        known.targetTokens === options.targetTokens &&
        known.frameTokens === options.frameTokens &&
        known.tokens === options.tokens
      ) {
        return known.cap;
      }
      const cap = summaryCapForTrail(options);
      if (stable) latestCap = { ...options, cap };
      return cap;
    },
    fitted({ text, ledger, itemsLedger, items, maxTokens, tokens, kept }) {
      const known = latestFit;
      if (
        ledger === undefined &&
        itemsLedger !== undefined &&
        known !== undefined &&
        known.ledger === itemsLedger &&
        known.text === text &&
        known.maxTokens === maxTokens &&
        known.tokens === tokens &&
        sameItems(known.kept, kept)
      ) {
        return known.fitted;
      }
      const fitted = fitSummaryText({
        text: summaryWithTrail({
          text,
          ledger,
          items,
          ...(itemsLedger === undefined ? {} : { itemsLedger }),
          maxTokens,
          tokens,
          kept,
        }),
        maxTokens,
        tokens,
      });
      if (ledger === undefined && itemsLedger !== undefined) {
        latestFit = { text, ledger: itemsLedger, maxTokens, tokens, kept: [...kept], fitted };
      }
      return fitted;
    },
  };
}
