/**
 * loopkeeper: an LLM agent loop as an XState v5 actor that keeps long sessions inside the
 * model's context window. Every public name is listed here on purpose.
 */

// The loop machine (spawnable as a child with `.provide(...)`).
export { agentLoopMachine } from '../machines/agent-loop.machine.js';
export type {
  AgentLoopContext,
  AgentLoopEvent,
  AgentLoopInput,
  MutatorDescriptor,
  UserContent,
} from '../machines/agent-loop.types.js';

// Errors.
export {
  AbortedError,
  CompactionError,
  ConcurrencyError,
  ConfigError,
  ContextOverflowError,
  LoopkeeperError,
  ModelError,
  type ModelErrorKind,
  MutatorError,
  ProtocolError,
  StoreError,
  ToolError,
} from './errors/index.js';

// Session log.
export {
  type AppendOptions,
  buildReplacementView,
  type CompactionReason,
  type CompactionTier,
  createProjection,
  effectiveHistory,
  FileSessionStore,
  type FileSessionStoreOptions,
  type ItemsAppendedEvent,
  isValidSessionId,
  loadProjection,
  MemorySessionStore,
  type MemorySessionStoreOptions,
  type NewSessionEvent,
  type ReadOptions,
  type ReportedUsage,
  type RunFinishedEvent,
  type RunOutcome,
  type RunStartedEvent,
  SESSION_SCHEMA_VERSION,
  type SessionEvent,
  type SessionEventType,
  SessionProjection,
  type SessionStore,
  type TranscriptReplacedEvent,
  type UsageReportedEvent,
  type ViewEntry,
} from './log/index.js';

// Model adapters.
export {
  classifyModelError,
  type ModelAdapter,
  type ModelRequest,
  type ModelResponse,
  type ModelUsage,
  type OpenAIChatModelOptions,
  openAIChatModel,
  type ToolSpec,
} from './model/index.js';

// Runtime and telemetry.
export {
  type AgentLoopActor,
  type AgentLoopLogic,
  type AgentLoopOptions,
  type CompactionFailed,
  type CompactionFinished,
  type CompactionStarted,
  createAgentLoop,
  createAgentLoopLogic,
  createTelemetryHub,
  type EmergencyPruneApplied,
  type InferenceDelta,
  type InferenceFailed,
  type InferenceFinished,
  type InferenceStarted,
  type ListenerErrorInfo,
  LoopSession,
  type MutationFinished,
  type MutationStarted,
  machineToMermaid,
  openAgentLoop,
  type RunFinished,
  type RunStarted,
  runTurn,
  type SerializedError,
  safeListener,
  serializeError,
  TELEMETRY_EVENT_TYPES,
  type TelemetryEvent,
  type TelemetryEventOf,
  type TelemetryEventType,
  type TelemetryHub,
  type TelemetryHubOptions,
  type TelemetryListener,
  type TelemetrySource,
  type ToolCallFinished,
  type ToolCallStarted,
} from './runtime/index.js';

// Tokens.
export {
  type Calibration,
  countTokens,
  createCalibration,
  createTokenCounter,
  type TokenCounter,
  type TokenCounterOptions,
  type TokenEncoding,
} from './tokens/index.js';

// Tools.
export {
  type AnyToolDefinition,
  createToolRegistry,
  defineTool,
  type ExecuteToolCallsOptions,
  executeToolCalls,
  type ToolDefinition,
  type ToolExecutionOptions,
  type ToolRegistry,
  toolSpecs,
} from './tools/index.js';

// Transcript.
export {
  type AssistantItem,
  assertValidTranscript,
  atomicGroups,
  COMPACTION_SUMMARY_NAME,
  type ContextItem,
  createItemId,
  type FromChatMessagesOptions,
  fromChatMessages,
  type ImagePart,
  type Item,
  type ItemKind,
  type ProtocolProblem,
  type ProtocolProblemKind,
  type ReasoningPart,
  type Repair,
  repairTranscript,
  type TextPart,
  type ToChatMessagesOptions,
  type ToolCall,
  type ToolResultItem,
  toChatMessages,
  type UserContentPart,
  type UserItem,
  userTurns,
  validateTranscript,
} from './transcript/index.js';
