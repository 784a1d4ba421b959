import type { Item } from '../transcript/types.js';

/**
 * Schema versions of persisted session events.
 * - 1: first version (items-appended, usage-reported, transcript-replaced, run-started, run-finished).
 * - 2: the same events; each line of a `FileSessionStore` log ends with `"crc"`, the CRC-32 of
 *   the line before that field, so a damaged line is told from a torn write. Version 1 lines
 *   (no checksum) are still read.
 * - 3: string values are snake_case like every other union: a `transcript-replaced` reason
 *   `payload_too_large` (was `payload-too-large`) and a `run-finished` outcome `step_limit`
 *   (was `step-limit`). Older lines are read with the new spellings (`upgradeStoredEvent`).
 *
 * @example
 * ```ts
 * import { MemorySessionStore, SESSION_SCHEMA_VERSION } from 'loopkeeper/log';
 *
 * const store = new MemorySessionStore();
 * await store.append('s1', [{ type: 'run-started', runId: 'run-1' }], { expectedSeq: 0 });
 * for await (const event of store.read('s1')) console.log(event.v === SESSION_SCHEMA_VERSION);
 * ```
 */
export const SESSION_SCHEMA_VERSION = 3;

export type CompactionReason = 'threshold' | 'overflow' | 'payload_too_large' | 'manual';
export type CompactionTier = 'structural' | 'summary' | 'emergency' | 'mutator';

/**
 * One entry of a replacement view: either a reference to an original item by id (kept as is),
 * or an item held inline (a summary, or a pruned copy that `replaces` an original item).
 */
export type ViewEntry =
  | { readonly ref: string }
  | { readonly item: Item; readonly replaces?: string };

interface EventBase {
  readonly v: number;
  readonly seq: number;
  /** ISO-8601 timestamp stamped by the store. */
  readonly at: string;
  readonly runId?: string;
}

export interface ItemsAppendedEvent extends EventBase {
  readonly type: 'items-appended';
  readonly items: readonly Item[];
}

export interface UsageReportedEvent extends EventBase {
  readonly type: 'usage-reported';
  readonly model: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly cachedTokens?: number;
  /** Our own estimate for the same request, kept for calibration. */
  readonly estimatedPromptTokens?: number;
}

/** The compaction marker: from now on the projection starts from `view`. */
export interface TranscriptReplacedEvent extends EventBase {
  readonly type: 'transcript-replaced';
  /** Every item appended at or before this seq is covered by `view`. */
  readonly throughSeq: number;
  readonly view: readonly ViewEntry[];
  readonly reason: CompactionReason;
  readonly tier: CompactionTier;
  readonly strategies: readonly string[];
  readonly tokensBefore: number;
  readonly tokensAfter: number;
}

export interface RunStartedEvent extends EventBase {
  readonly type: 'run-started';
  readonly runId: string;
}

export type RunOutcome = 'completed' | 'failed' | 'aborted' | 'step_limit';

export interface RunFinishedEvent extends EventBase {
  readonly type: 'run-finished';
  readonly runId: string;
  readonly outcome: RunOutcome;
  readonly steps: number;
  readonly error?: { readonly name: string; readonly code: string; readonly message: string };
}

export type SessionEvent =
  | ItemsAppendedEvent
  | UsageReportedEvent
  | TranscriptReplacedEvent
  | RunStartedEvent
  | RunFinishedEvent;

export type SessionEventType = SessionEvent['type'];

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** An event as handed to `SessionStore.append`: the store stamps `v`, `seq` and `at`. */
export type NewSessionEvent = DistributiveOmit<SessionEvent, 'v' | 'seq' | 'at'>;

/**
 * Every event type of the current schema version, for validating input and stored lines.
 *
 * @example
 * ```ts
 * import { SESSION_EVENT_TYPES, type SessionEventType } from 'loopkeeper/log';
 *
 * function isSessionEventType(type: string): type is SessionEventType {
 *   return (SESSION_EVENT_TYPES as readonly string[]).includes(type);
 * }
 * ```
 */
export const SESSION_EVENT_TYPES: readonly SessionEventType[] = [
  'items-appended',
  'usage-reported',
  'transcript-replaced',
  'run-started',
  'run-finished',
];
