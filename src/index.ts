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

// Compaction.
export { type ApplyCompactionOptions, applyCompaction } from './compaction/apply.js';
export {
  type CompactInput,
  type CompactOutcome,
  type Compactor,
  type CompactorOptions,
  createCompactor,
  type EmergencyOutcome,
  type EmergencyPruneInput,
} from './compaction/compactor.js';
export { pipeline } from './compaction/pipeline.js';
export { dropFailedToolResults } from './compaction/strategies/drop-failed-tool-results.js';
export {
  type DropReasoningOptions,
  dropReasoning,
} from './compaction/strategies/drop-reasoning.js';
export {
  type EmergencyPruneOptions,
  emergencyPrune,
} from './compaction/strategies/emergency-prune.js';
export { type KeepRecentOptions, keepRecent } from './compaction/strategies/keep-recent.js';
export {
  type PruneLargestToolResultsOptions,
  pruneLargestToolResults,
} from './compaction/strategies/prune-largest-tool-results.js';
export {
  type PruneToolResultsOptions,
  pruneToolResults,
} from './compaction/strategies/prune-tool-results.js';
export {
  type SummarizeOlderOptions,
  summarizeOlder,
} from './compaction/strategies/summarize-older.js';
export {
  type ExtractiveSummarizerOptions,
  extractiveSummarizer,
} from './compaction/summarizers/extractive.js';
export { type OpenAISummarizerOptions, openAISummarizer } from './compaction/summarizers/openai.js';
export {
  createSummaryItem,
  isSummaryItem,
  SUMMARY_SECTIONS,
  type SummaryItem,
  type SummarySection,
  validateSummaryText,
} from './compaction/summary.js';
export {
  type ContextWindowTriggerOptions,
  contextWindowTrigger,
} from './compaction/triggers/context-window-trigger.js';
export {
  type ItemCountTriggerOptions,
  itemCountTrigger,
} from './compaction/triggers/item-count-trigger.js';
export {
  type TokenBudgetTriggerOptions,
  tokenBudgetTrigger,
} from './compaction/triggers/token-budget-trigger.js';
export type {
  CompactionBackend,
  CompactionBudget,
  CompactionContext,
  CompactionRequest,
  CompactionResult,
  CompactionStrategy,
  CompactionTrigger,
  LoopMutator,
  MutationInput,
  MutationMarker,
  MutationOutput,
  MutationPoint,
  SummaryRequest,
  SummaryResult,
  TriggerDecision,
  TriggerInput,
} from './compaction/types.js';

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
