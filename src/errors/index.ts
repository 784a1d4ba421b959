/** The `loopkeeper/errors` entry: the error family (one class per failure, a shared `LoopkeeperError` base with a `Symbol.for` marker) and the typed error codes. */

export { AbortedError } from './aborted-error.js';
export { ApprovalError } from './approval-error.js';
export { CompactionError } from './compaction-error.js';
export { ConcurrencyError } from './concurrency-error.js';
export { ConfigError } from './config-error.js';
export { ContextOverflowError } from './context-overflow-error.js';
export { DurableStepError } from './durable-step-error.js';
export {
  type AbortedErrorCode,
  type ApprovalErrorCode,
  type CompactionErrorCode,
  type ConcurrencyErrorCode,
  type ConfigErrorCode,
  type ContextOverflowErrorCode,
  type DurableStepErrorCode,
  ERROR_CODES,
  isErrorCodeOf,
  isLoopkeeperErrorCode,
  type LoopkeeperErrorCode,
  type LoopNotRunningErrorCode,
  type ModelErrorCode,
  type MutatorErrorCode,
  type ProtocolErrorCode,
  type StoreErrorCode,
  type ToolErrorCode,
} from './error-codes.js';
export { LoopNotRunningError } from './loop-not-running-error.js';
export { LoopkeeperError } from './loopkeeper-error.js';
export { ModelError, type ModelErrorKind, type ModelErrorOptions } from './model-error.js';
export { MutatorError } from './mutator-error.js';
export { ProtocolError, type ProtocolErrorOptions } from './protocol-error.js';
export { StoreError } from './store-error.js';
export { ToolError } from './tool-error.js';
