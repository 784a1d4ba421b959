/**
 * loopkeeper: an LLM agent loop as an XState v5 actor that keeps long sessions inside the
 * model's context window.
 *
 * The root entry holds what a host needs to embed the loop: the loop itself, the OpenAI model
 * adapter, tools, the two stores, the compactor with its built-in strategies, triggers and
 * summarizers, the transcript conversions and the error family. Everything else lives in a
 * subpath entry of its own (docs/api.md lists them): `loopkeeper/compaction`, `/log`,
 * `/transcript`, `/tokens`, `/tools`, `/model`, `/runtime`, `/errors`, `/machines`, and the
 * integrations `/testing`, `/otel` and `/restate`. Every public name is listed on purpose.
 */

// The loop machine; the loop, model, tools, stores, compaction, transcript and errors follow,
// one block per subpath entry that holds the rest of its area.
export { agentLoopMachine } from '../machines/agent-loop.machine.js';
export type { AgentLoopInput } from '../machines/agent-loop.types.js';
export {
  type CompactionBackend,
  type CompactionStrategy,
  contextWindowTrigger,
  createCompactor,
  dropFailedToolResults,
  dropReasoning,
  emergencyPrune,
  extractiveSummarizer,
  itemCountTrigger,
  keepRecent,
  type LoopMutator,
  openAISummarizer,
  pipeline,
  pruneToolResults,
  summarizeOlder,
  tokenBudgetTrigger,
} from './compaction/index.js';
export {
  AbortedError,
  ApprovalError,
  CompactionError,
  ConcurrencyError,
  ConfigError,
  ContextOverflowError,
  DurableStepError,
  ERROR_CODES,
  LoopkeeperError,
  type LoopkeeperErrorCode,
  LoopNotRunningError,
  ModelError,
  MutatorError,
  ProtocolError,
  StoreError,
  ToolError,
} from './errors/index.js';
export {
  effectiveHistory,
  FileSessionStore,
  MemorySessionStore,
  type SessionEvent,
  type SessionStore,
} from './log/index.js';
export { type ModelAdapter, openAIChatModel } from './model/index.js';
export { agentSummarizer } from './runtime/agent-summarizer.js';
export {
  type AgentLoopActor,
  type AgentLoopLogic,
  type AgentLoopOptions,
  createAgentLoop,
  createAgentLoopLogic,
  createTelemetryHub,
  decide,
  LoopSession,
  openAgentLoop,
  pendingApprovals,
  resumeRun,
  runTurn,
  type TelemetryEvent,
  type TelemetryEventOf,
  type TurnResult,
} from './runtime/index.js';
export { createTokenCounter } from './tokens/index.js';
export { defineTool, type ToolDefinition } from './tools/index.js';
export {
  COMPACTION_SUMMARY_NAME,
  fromChatMessages,
  type Item,
  repairTranscript,
  toChatMessages,
  validateTranscript,
} from './transcript/index.js';
