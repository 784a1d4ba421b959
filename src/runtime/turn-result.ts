import type { PendingApproval, RunFinished } from '../events/telemetry-events.js';
import type { TurnRecord } from './turn-record.js';

export type { TurnOutcome } from '../vocabulary/index.js';

/** A run that finished: its `RunFinished` event plus what it added to the log. */
export interface FinishedTurn extends RunFinished, TurnRecord {
  /** Always empty: a finished run waits for nothing. */
  readonly pending: readonly PendingApproval[];
}

/** A run that paused until every call in `pending` is decided (`decide`). */
export interface PausedTurn extends TurnRecord {
  readonly type: 'RunPaused';
  readonly sessionId: string;
  readonly runId: string;
  readonly at: number;
  readonly outcome: 'awaiting_approval';
  readonly steps: number;
  readonly error: undefined;
  readonly pending: readonly PendingApproval[];
}

/**
 * What one turn produced so far, read from the session log: the run finished (`RunFinished`
 * and its output), or it paused for approval with the calls it waits for.
 */
export type TurnResult = FinishedTurn | PausedTurn;

/** A person's decision on a call the run waits for. */
export interface ToolApproval {
  readonly callId: string;
  readonly approved: boolean;
  /** Told to the model with a denial; recorded in the log either way. */
  readonly reason?: string;
}
