import type { TranscriptReplacedEvent } from '../log/events.js';
import { buildReplacementView } from '../log/replacement-view.js';
import type { SessionStore } from '../log/store.js';
import type { Item } from '../transcript/types.js';
import type { CompactOutcome } from './compactor.js';
import type { CompactionReason } from './types.js';

export interface ApplyCompactionOptions {
  readonly store: SessionStore;
  readonly sessionId: string;
  /** The session's last seq as the compactor saw it; the marker covers everything up to it. */
  readonly expectedSeq: number;
  /** The effective history the compaction started from, so kept items become small refs. */
  readonly previous: readonly Item[];
  readonly outcome: Pick<
    CompactOutcome,
    'transcript' | 'tier' | 'strategies' | 'tokensBefore' | 'tokensAfter'
  >;
  readonly reason: CompactionReason;
  readonly runId?: string;
}

/**
 * Records a compaction in the session log as exactly one `transcript-replaced` event. It is
 * appended with `expectedSeq`, so a writer that raced ahead makes it fail with
 * `ConcurrencyError` and nothing is written. Only successful outcomes are ever applied: a
 * failed summary throws before there is an outcome, so it never leaves a marker.
 *
 * @example
 * ```ts
 * import { applyCompaction } from 'loopkeeper/compaction';
 * import { MemorySessionStore, type Item } from 'loopkeeper';
 *
 * const store = new MemorySessionStore();
 * const previous: Item[] = [{ kind: 'user', id: 'u1', content: 'Hello' }];
 * await store.append('s1', [{ type: 'items-appended', items: previous }], { expectedSeq: 0 });
 * const marker = await applyCompaction({
 *   store,
 *   sessionId: 's1',
 *   expectedSeq: 1,
 *   previous,
 *   reason: 'manual',
 *   outcome: {
 *     transcript: previous,
 *     tier: 'structural',
 *     strategies: [],
 *     tokensBefore: 9,
 *     tokensAfter: 9,
 *   },
 * });
 * console.log(marker.type, marker.throughSeq);
 * ```
 */
export async function applyCompaction({
  store,
  sessionId,
  expectedSeq,
  previous,
  outcome,
  reason,
  runId,
}: ApplyCompactionOptions): Promise<TranscriptReplacedEvent> {
  const view = buildReplacementView({ previous, next: outcome.transcript });
  const [event] = await store.append(
    sessionId,
    [
      {
        type: 'transcript-replaced',
        throughSeq: expectedSeq,
        view,
        reason,
        tier: outcome.tier,
        strategies: outcome.strategies,
        tokensBefore: outcome.tokensBefore,
        tokensAfter: outcome.tokensAfter,
        ...(runId === undefined ? {} : { runId }),
      },
    ],
    { expectedSeq },
  );
  return event as TranscriptReplacedEvent;
}
