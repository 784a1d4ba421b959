/**
 * The `loopkeeper/restate` entry: sessions as Restate Virtual Objects. Needs the optional peer
 * dependency @restatedev/restate-sdk; the core entry never imports it.
 */
export {
  type AbortLoopSessionOptions,
  type AbortLoopSessionResult,
  abortLoopSession,
} from './abort-session.js';
export type { DurableToolExecutionOptions } from './durable-tools.js';
export type { LoopObjectLimits } from './limits.js';
export {
  createLoopObject,
  LOOP_OBJECT_NAME,
  type LoopObject,
  type LoopObjectOptions,
} from './loop-object.js';
export type {
  AbortResult,
  LoopObjectLoopOptions,
  SendMessageInput,
  TelemetryPage,
  TelemetryPageInput,
} from './loop-object-types.js';
export type { TelemetryRecord } from './telemetry-recorder.js';
