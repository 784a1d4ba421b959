import { climbLadder } from '../compaction/compaction-ladder.js';
import { sameTranscript } from '../compaction/compactor-steps.js';
import type { CompactInput, Compactor } from '../compaction/compactor-types.js';
import { replacedItemId } from '../compaction/helpers/derived-item.js';
import type { ViewEntry } from '../log/events.js';
import { buildReplacementView } from '../log/replacement-view.js';
import type { Item } from '../transcript/types.js';
import type { CompactionReason, CompactionTier } from '../vocabulary/index.js';

/** One compaction before a request: what it did, as telemetry and the log record it. */
export interface CompactionRecord {
  readonly stepNumber: number;
  readonly reason: CompactionReason;
  readonly tier: CompactionTier;
  readonly strategies: readonly string[];
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** Whether the result is under the trigger with headroom (otherwise the emergency prune ran). */
  readonly effective: boolean;
  readonly transcript: readonly Item[];
  readonly metadata: Readonly<Record<string, unknown>>;
}

interface CompactOnceInput {
  readonly compactor: Compactor;
  readonly input: Omit<CompactInput, 'originalOf'>;
  /** The original item of an id, as first converted (summaries are written from originals). */
  readonly originalOf: (id: string) => Item | undefined;
  readonly stepNumber: number;
}

/**
 * The compactor's tiers once (`climbLadder`): the structural tier and the summary; a summary
 * that fails or a result still over the line goes on to the emergency prune. Undefined when
 * nothing changed.
 */
export async function compactOnce({
  compactor,
  input,
  originalOf,
  stepNumber,
}: CompactOnceInput): Promise<
  (CompactionRecord & { marker(previous: readonly Item[]): MarkerFields }) | undefined
> {
  const { outcome, summaryError } = await climbLadder(compactor, {
    ...input,
    originalOf: (item) => {
      const origin = replacedItemId(item);
      return origin === undefined ? undefined : originalOf(origin);
    },
  });
  const transcript = outcome.transcript;
  if (sameTranscript(input.transcript, transcript)) return undefined;
  const record = {
    stepNumber,
    reason: input.reason,
    tier: outcome.tier,
    strategies: outcome.strategies,
    tokensBefore: outcome.tokensBefore,
    tokensAfter: outcome.tokensAfter,
    effective: outcome.effective,
    transcript,
    metadata: {
      ...outcome.metadata,
      ...(summaryError === undefined ? {} : { summaryError: summaryError.toJSON() }),
    },
  };
  return {
    ...record,
    marker: (previous) => ({
      view: buildReplacementView({ previous, next: transcript, originOf: replacedItemId }),
      reason: record.reason,
      tier: record.tier,
      strategies: record.strategies,
      tokensBefore: record.tokensBefore,
      tokensAfter: record.tokensAfter,
    }),
  };
}

/** The fields of a `transcript-replaced` marker that describe the change. */
export interface MarkerFields {
  readonly view: readonly ViewEntry[];
  readonly reason: CompactionReason;
  readonly tier: CompactionTier;
  readonly strategies: readonly string[];
  readonly tokensBefore: number;
  readonly tokensAfter: number;
}
