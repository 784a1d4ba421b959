/**
 * The `loopkeeper/runtime` entry: `createAgentLoop` (the machine bound to its implementations),
 * turns and sessions over it, and the telemetry events and hub.
 */

export { ApprovalError } from '../errors/approval-error.js';
export type * from '../events/telemetry-events.js';
export { TELEMETRY_EVENT_TYPES } from '../events/telemetry-events.js';
export { serializeError } from '../vocabulary/serialized-error.js';
export { type AgentSummarizerOptions, agentSummarizer } from './agent-summarizer.js';
export {
  type AgentLoopActor,
  type AgentLoopLogic,
  type AgentLoopOptions,
  createAgentLoop,
  createAgentLoopLogic,
  type OpenAgentLoopOptions,
  openAgentLoop,
} from './create-agent-loop.js';
export { type InterruptedRunPolicy, LoopSession, type LoopSessionOptions } from './loop-session.js';
export { machineToMermaid } from './machine-diagram.js';
export {
  decide,
  type FinishedTurn,
  type PausedTurn,
  pendingApprovals,
  resumeRun,
  type ToolApproval,
  type TurnOutcome,
  type TurnResult,
} from './run-pause.js';
export { pendingApprovalsIn, type UnfinishedRun } from './run-progress.js';
export { runTurn } from './run-turn.js';
export { streamTurn, type TurnStream } from './stream-turn.js';
export {
  createTelemetryHub,
  type ListenerErrorInfo,
  safeListener,
  type TelemetryEventOf,
  type TelemetryHub,
  type TelemetryHubOptions,
  type TelemetryListener,
  type TelemetrySource,
} from './telemetry-hub.js';
export type { TurnRecord } from './turn-record.js';
export type {
  TurnFinishPart,
  TurnStreamPart,
  TurnStreamPartType,
} from './turn-stream-part.js';
