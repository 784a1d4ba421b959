import type { PendingApproval } from '../events/telemetry-events.js';
import type { RunOutcome, SerializedError } from '../vocabulary/index.js';
import type { TurnRecord } from './turn-record.js';

export type { TurnOutcome } from '../vocabulary/index.js';

/** What every turn result says, finished or paused: JSON all the way down (no `undefined`). */
interface TurnResultBase extends TurnRecord {
  readonly sessionId: string;
  readonly runId: string;
  /**
   * Milliseconds since the epoch: when the log recorded the run's last event (its end, or the
   * approval request it paused at); the loop's clock only when the log could not be read.
   */
  readonly at: number;
  readonly steps: number;
  /**
   * Set by a durable (Restate) session when the run's items are larger than its
   * `limits.maxEntryBytes`: how many of the last ones `itemsAdded` leaves out. They are in the
   * log (`log()`).
   */
  readonly itemsOmitted?: number;
  /** The calls a paused run waits for; empty once it finished. */
  readonly pending: readonly PendingApproval[];
}

/** A run that finished: its `RunFinished` fields plus what it added to the log. */
export interface FinishedTurn extends TurnResultBase {
  readonly type: 'RunFinished';
  readonly outcome: RunOutcome;
  /** Why a run that did not complete ended; null when it completed. */
  readonly error: SerializedError | null;
}

/** A run that paused until every call in `pending` is decided (`decide`). */
export interface PausedTurn extends TurnResultBase {
  readonly type: 'RunPaused';
  readonly outcome: 'awaiting_approval';
  readonly error: null;
}

/**
 * What one turn produced so far, read from the session log: the run finished (`RunFinished`
 * and its output), or it paused for approval with the calls it waits for. One shape for
 * `runTurn`, `decide`, `streamTurn` and the durable (Restate) session's handlers, JSON-safe:
 * absent values are `null`, so a result survives a journal or a wire unchanged.
 */
export type TurnResult = FinishedTurn | PausedTurn;

/** A person's decision on a call the run waits for. */
export interface ToolApproval {
  readonly callId: string;
  readonly approved: boolean;
  /** Told to the model with a denial; recorded in the log either way. */
  readonly reason?: string;
}
