import type { Item } from '../transcript/types.js';
import type {
  CompactionReason,
  CompactionTier,
  RunOutcome,
  SerializedError,
} from '../vocabulary/index.js';

export type { CompactionReason, CompactionTier, RunOutcome } from '../vocabulary/index.js';

/**
 * Schema versions of persisted session events.
 * - 1: first version (items-appended, usage-reported, transcript-replaced, run-started, run-finished).
 * - 2: the same events; each line of a `FileSessionStore` log ends with `"crc"`, the CRC-32 of
 *   the line before that field, so a damaged line is told from a torn write. Version 1 lines
 *   (no checksum) are still read.
 * - 3: string values are snake_case like every other union: a `transcript-replaced` reason
 *   `payload_too_large` (was `payload-too-large`) and a `run-finished` outcome `step_limit`
 *   (was `step-limit`). Older lines are read with the new spellings (`upgradeStoredEvent`).
 * - 4: durable runs. `tool-calls-started` (written before tools run, with each call's arguments
 *   hash), `approval-requested` and `approval-decided`, so a run can be resumed in place and a
 *   run waiting for a person survives restarts. Logs of versions 1-3 have none of them and read
 *   as before; a version-3 reader refuses a version-4 log by its version, not by a type.
 * - 5: provider data on reasoning. An assistant item's reasoning part may carry `providerData`,
 *   an opaque JSON object keyed by provider (a thinking signature, encrypted reasoning, a server
 *   item id) that is sent back byte-identical; appends refuse one that a JSON round trip would
 *   change. A context item may carry `providerData` the same way (a provider's compaction
 *   item). A compaction marker's `tier` may be `provider` (the provider compacted the span
 *   itself). Logs of versions 1-4 have neither and read unchanged; a version-4 reader refuses a
 *   version-5 log by its version.
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
export const SESSION_SCHEMA_VERSION = 5;

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

export interface RunFinishedEvent extends EventBase {
  readonly type: 'run-finished';
  readonly runId: string;
  readonly outcome: RunOutcome;
  readonly steps: number;
  readonly error?: SerializedError;
}

/** One tool call as the durable-run events name it: its id and a hash of its arguments. */
export interface LoggedToolCall {
  readonly callId: string;
  /** `sha256:<hex>` of the arguments as the model wrote them (see `hashToolArguments`). */
  readonly argumentsHash: string;
}

/**
 * Written just before a batch of tool calls runs: a call named here with no result in the log
 * was started and may have taken effect, so a resumed run re-runs it only when the tool is
 * `idempotent`. A call's `toolResult` item is its finish record.
 */
export interface ToolCallsStartedEvent extends EventBase {
  readonly type: 'tool-calls-started';
  readonly runId: string;
  readonly calls: readonly LoggedToolCall[];
}

/** A call that waits for a person before it may run. */
export interface ApprovalRequest extends LoggedToolCall {
  readonly toolName: string;
  /** The arguments as the model wrote them (a JSON string), exactly as they would run. */
  readonly arguments: string;
}

/** The run paused: these calls wait for a decision (`tool.approval`). */
export interface ApprovalRequestedEvent extends EventBase {
  readonly type: 'approval-requested';
  readonly runId: string;
  readonly calls: readonly ApprovalRequest[];
}

/** A person's decision on one requested call; the approved call runs only with this hash. */
export interface ApprovalDecidedEvent extends EventBase {
  readonly type: 'approval-decided';
  readonly runId: string;
  readonly callId: string;
  readonly approved: boolean;
  readonly reason?: string;
  readonly argumentsHash: string;
}

export type SessionEvent =
  | ItemsAppendedEvent
  | UsageReportedEvent
  | TranscriptReplacedEvent
  | RunStartedEvent
  | RunFinishedEvent
  | ToolCallsStartedEvent
  | ApprovalRequestedEvent
  | ApprovalDecidedEvent;

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
  'tool-calls-started',
  'approval-requested',
  'approval-decided',
];
