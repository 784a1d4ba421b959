/**
 * The `loopkeeper/runtime` entry: `createAgentLoop` (the machine bound to its implementations),
 * turns and sessions over it, and the telemetry events and hub.
 */

export type * from '../events/telemetry-events.js';
export { TELEMETRY_EVENT_TYPES } from '../events/telemetry-events.js';
export {
  type AgentLoopActor,
  type AgentLoopLogic,
  type AgentLoopOptions,
  createAgentLoop,
  createAgentLoopLogic,
  openAgentLoop,
} from './create-agent-loop.js';
export { LoopSession, type LoopSessionOptions } from './loop-session.js';
export { machineToMermaid } from './machine-diagram.js';
export { runTurn, type TurnResult } from './run-turn.js';
export { serializeError } from './serialize-error.js';
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
