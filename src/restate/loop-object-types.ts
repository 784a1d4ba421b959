import type { UserContent } from '../../machines/agent-loop.types.js';
import type { AgentLoopOptions } from '../runtime/create-agent-loop.js';
import type { ToolApproval } from '../runtime/run-pause.js';
import type { TelemetryRecord } from './telemetry-recorder.js';

/** The loop options a host gives per session; the object supplies the store and the id. */
export type LoopObjectLoopOptions = Omit<AgentLoopOptions, 'store' | 'sessionId' | 'inspect'>;

/** Input of the `send` handler. */
export interface SendMessageInput {
  readonly content: UserContent;
  /**
   * Names the run; sending the same `runId` again with the same content returns the recorded
   * result instead of starting a second run (for hosts that retry a send). With other content
   * it is refused (terminal 409, `run_id_reused`): a run id stands for one message. Made for you
   * when absent.
   */
  readonly runId?: string;
}

/** Input of the `approve` handler: decisions for calls the session's waiting run waits for. */
export interface ApproveInput {
  readonly decisions: readonly ToolApproval[];
}

/** Input of the `telemetry` handler. */
export interface TelemetryPageInput {
  /** First seq to return (default 1). */
  readonly fromSeq?: number;
  /** At most this many events (default 100, at most 1000). */
  readonly limit?: number;
}

export interface TelemetryPage {
  readonly events: readonly TelemetryRecord[];
  /** Pass as `fromSeq` to read on; equals the first seq not yet recorded when caught up. */
  readonly nextSeq: number;
}

/** What `abort()` answers. */
export interface AbortResult {
  /** False when no `send` or `approve` was running. */
  readonly aborted: boolean;
  /** The invocation asked to cancel, for `abortLoopSession` or Restate's admin API. */
  readonly invocationId: string | null;
}
