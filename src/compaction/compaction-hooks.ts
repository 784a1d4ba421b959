import type { Item } from '../transcript/types.js';
import type { CompactionReason, CompactionTier } from '../vocabulary/index.js';
import { replacedItemId } from './helpers/derived-item.js';

/** What `beforeCompaction` sees: the transcript about to be compacted and why. */
export interface BeforeCompactionEvent {
  readonly transcript: readonly Item[];
  readonly reason: CompactionReason;
  /** Tokens of the transcript, in the compactor's count. */
  readonly tokens: number;
  /** Instructions already asked for (`loop.send({type: 'compact', instructions})`), if any. */
  readonly instructions?: string;
}

/** What `beforeCompaction` may answer; nothing (undefined) lets the compaction run as it is. */
export interface BeforeCompactionDecision {
  /**
   * Skip this compaction: the transcript stays as it is. A skipped compaction the budget needs
   * is ineffective, so the loop still runs the emergency prune (which no hook can skip), and a
   * request never goes out over the window.
   */
  readonly skip?: boolean;
  /** Instructions for the summary, added after any the request carried. */
  readonly instructions?: string;
}

/** What `afterCompaction` sees: what the compaction dropped and kept. */
export interface AfterCompactionEvent {
  readonly reason: CompactionReason;
  readonly tier: CompactionTier;
  readonly strategies: readonly string[];
  readonly before: readonly Item[];
  readonly after: readonly Item[];
  /** Items of `before` no longer in `after` (the log keeps them). */
  readonly dropped: readonly Item[];
  /** Items of `before` still in `after`, as they were or replaced (a pruned output). */
  readonly kept: readonly Item[];
  /** Items `after` holds that `before` did not (a summary, a pinned plan). */
  readonly added: readonly Item[];
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** The instructions the summary was given, if any. */
  readonly instructions?: string;
}

/** Hooks around every compaction of a compactor (`createCompactor({hooks})`). */
export interface CompactionHooks {
  /**
   * Before the structural and summary tiers: add instructions for the summary, or skip. A throw
   * fails this compaction like a failed summary (the emergency prune follows).
   */
  readonly beforeCompaction?: (
    event: BeforeCompactionEvent,
  ) => BeforeCompactionDecision | undefined | Promise<BeforeCompactionDecision | undefined>;
  /**
   * After every compaction that changed the transcript, emergency prunes included. It observes:
   * what it returns is ignored, and a throw is kept in the outcome's metadata
   * (`afterCompactionError`), never failing the compaction.
   */
  readonly afterCompaction?: (event: AfterCompactionEvent) => void | Promise<void>;
}

/** Which items of `before` a compaction dropped, kept (or replaced) and added. */
export function compactionDiff(
  before: readonly Item[],
  after: readonly Item[],
): { dropped: Item[]; kept: Item[]; added: Item[] } {
  // A changed copy (a pruned output) stands in for the item it replaces.
  const originOf = (item: Item): string => replacedItemId(item) ?? item.id;
  const afterIds = new Set(after.map(originOf));
  const beforeIds = new Set(before.map(originOf));
  const dropped: Item[] = [];
  const kept: Item[] = [];
  for (const item of before) (afterIds.has(originOf(item)) ? kept : dropped).push(item);
  const added = after.filter((item) => !beforeIds.has(originOf(item)));
  return { dropped, kept, added };
}
