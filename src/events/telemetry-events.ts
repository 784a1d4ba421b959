import type { ApprovalRequest } from '../log/events.js';
import type { ModelUsage } from '../model/types.js';
import type {
  CompactionReason,
  CompactionTier,
  MutationPoint,
  RunOutcome,
  SerializedError,
} from '../vocabulary/index.js';

export type { SerializedError } from '../vocabulary/index.js';

/** Fields every telemetry event carries. */
interface TelemetryBase {
  readonly sessionId: string;
  readonly runId: string;
  /** Milliseconds since the epoch. */
  readonly at: number;
}

export interface RunStarted extends TelemetryBase {
  readonly type: 'RunStarted';
  /** True when the run was continued from the log after its process stopped. */
  readonly resumed?: boolean;
}
export interface InferenceStarted extends TelemetryBase {
  readonly type: 'InferenceStarted';
  readonly step: number;
  readonly estimatedPromptTokens: number;
  /**
   * Present (true) when `estimatedPromptTokens` is an upper bound rather than the exact count:
   * a loop with no compactor and no mutators loads no encoding while its history is small.
   */
  readonly estimateIsBound?: true;
  /** The model the request asks for, when the adapter names it (`ModelAdapter.model`). */
  readonly model?: string;
}
/** A piece of the answer's text, as a streaming adapter received it. */
export interface InferenceDelta extends TelemetryBase {
  readonly type: 'InferenceDelta';
  readonly step: number;
  readonly delta: string;
}
/** A piece of the answer's reasoning, as a streaming adapter received it. */
export interface ReasoningDelta extends TelemetryBase {
  readonly type: 'ReasoningDelta';
  readonly step: number;
  readonly delta: string;
}
/** A piece of one tool call's arguments (raw JSON text), while the model is still writing them. */
export interface ToolCallDelta extends TelemetryBase {
  readonly type: 'ToolCallDelta';
  readonly step: number;
  /** The call's position in the answer (0-based), the steady key while the answer streams. */
  readonly index: number;
  /** The id the model gave the call, once sent; the log keeps it unless it repeats an earlier id. */
  readonly callId?: string;
  /** The tool's name, once the model has sent it. */
  readonly toolName?: string;
  /** The next characters of the arguments; empty when the delta only names the call. */
  readonly delta: string;
}
export interface InferenceFinished extends TelemetryBase {
  readonly type: 'InferenceFinished';
  readonly step: number;
  readonly usage: ModelUsage | undefined;
  readonly toolCalls: number;
  readonly durationMs: number;
  /** The model that answered, as the provider reported it. */
  readonly model?: string;
  /** Why the model stopped, as the provider reported it (e.g. `stop`, `tool_calls`). */
  readonly finishReason?: string;
}
export interface InferenceFailed extends TelemetryBase {
  readonly type: 'InferenceFailed';
  readonly step: number;
  readonly error: SerializedError;
}
export interface ToolCallStarted extends TelemetryBase {
  readonly type: 'ToolCallStarted';
  readonly callId: string;
  readonly toolName: string;
}
/** A running tool reported progress through `ToolExecutionOptions.reportProgress`. */
export interface ToolCallProgress extends TelemetryBase {
  readonly type: 'ToolCallProgress';
  readonly callId: string;
  readonly toolName: string;
  /** What the tool reported, as it gave it (telemetry only: the log does not keep it). */
  readonly data: unknown;
}
export interface ToolCallFinished extends TelemetryBase {
  readonly type: 'ToolCallFinished';
  readonly callId: string;
  readonly toolName: string;
  readonly isError: boolean;
  readonly durationMs: number;
  /** Length of the result's content in characters (the content itself is in the log). */
  readonly outputLength: number;
}
export interface MutationStarted extends TelemetryBase {
  readonly type: 'MutationStarted';
  readonly mutator: string;
  readonly point: MutationPoint;
}
export interface MutationFinished extends TelemetryBase {
  readonly type: 'MutationFinished';
  readonly mutator: string;
  readonly point: MutationPoint;
  readonly dirty: boolean;
  readonly metadata: Readonly<Record<string, unknown>>;
}
export interface CompactionStarted extends TelemetryBase {
  readonly type: 'CompactionStarted';
  readonly reason: CompactionReason;
  readonly attempt: number;
}
export interface CompactionFinished extends TelemetryBase {
  readonly type: 'CompactionFinished';
  readonly reason: CompactionReason;
  readonly tier: CompactionTier;
  readonly strategies: readonly string[];
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly effective: boolean;
  readonly durationMs: number;
}
export interface CompactionFailed extends TelemetryBase {
  readonly type: 'CompactionFailed';
  readonly reason: CompactionReason;
  readonly error: SerializedError;
}
export interface EmergencyPruneApplied extends TelemetryBase {
  readonly type: 'EmergencyPruneApplied';
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly fits: boolean;
}
/**
 * A tool call that waits for a person's decision: its id, tool, arguments as the model wrote
 * them (what runs if approved) and their hash. The same shape the log's `approval-requested`
 * records.
 */
export type PendingApproval = ApprovalRequest;

/**
 * The run paused: `calls` wait for a decision (`tool.approval`). Emitted each time a run enters
 * the wait, also when a resumed run finds itself waiting.
 */
export interface ApprovalRequested extends TelemetryBase {
  readonly type: 'ApprovalRequested';
  readonly calls: readonly PendingApproval[];
}

/** A decision was recorded in the log; the run goes on once every pending call has one. */
export interface ApprovalDecided extends TelemetryBase {
  readonly type: 'ApprovalDecided';
  readonly callId: string;
  readonly toolName: string;
  readonly approved: boolean;
  readonly reason?: string;
}

export interface RunFinished extends TelemetryBase {
  readonly type: 'RunFinished';
  readonly outcome: RunOutcome;
  readonly steps: number;
  readonly error: SerializedError | undefined;
}

/**
 * An event of a loop run as a child of this one, e.g. the agent summarizer's, nested under the
 * run (and compaction) it serves. `event` is the child's own, with the child's ids.
 */
export interface ChildLoopEmitted extends TelemetryBase {
  readonly type: 'ChildLoopEmitted';
  /** What runs the child loop, e.g. the summarizer's name. */
  readonly source: string;
  readonly event: TelemetryEvent;
}

export type TelemetryEvent =
  | RunStarted
  | InferenceStarted
  | InferenceDelta
  | ReasoningDelta
  | ToolCallDelta
  | InferenceFinished
  | InferenceFailed
  | ApprovalRequested
  | ApprovalDecided
  | ToolCallStarted
  | ToolCallProgress
  | ToolCallFinished
  | MutationStarted
  | MutationFinished
  | CompactionStarted
  | CompactionFinished
  | CompactionFailed
  | EmergencyPruneApplied
  | ChildLoopEmitted
  | RunFinished;

export type TelemetryEventType = TelemetryEvent['type'];

/**
 * Every telemetry event type, in the order a run usually emits them.
 *
 * @example
 * ```ts
 * import { TELEMETRY_EVENT_TYPES } from 'loopkeeper/runtime';
 * import { createAgentLoop } from 'loopkeeper';
 * import { ScriptedModel } from 'loopkeeper/testing';
 *
 * const loop = createAgentLoop({ model: new ScriptedModel({ turns: [] }) });
 * // Forward every telemetry event to one log.
 * for (const type of TELEMETRY_EVENT_TYPES) loop.on(type, (event) => console.log(type, event.at));
 * ```
 */
export const TELEMETRY_EVENT_TYPES = [
  'RunStarted',
  'InferenceStarted',
  'InferenceDelta',
  'ReasoningDelta',
  'ToolCallDelta',
  'InferenceFinished',
  'InferenceFailed',
  'ApprovalRequested',
  'ApprovalDecided',
  'ToolCallStarted',
  'ToolCallProgress',
  'ToolCallFinished',
  'MutationStarted',
  'MutationFinished',
  'CompactionStarted',
  'CompactionFinished',
  'CompactionFailed',
  'EmergencyPruneApplied',
  'ChildLoopEmitted',
  'RunFinished',
] as const satisfies readonly TelemetryEventType[];
