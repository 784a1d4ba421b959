/** The compaction layer: strategies, pipeline, triggers, summarizers, the compactor. */

export { type ApplyCompactionOptions, applyCompaction } from './apply.js';
export {
  type BudgetCheck,
  type BudgetCheckRequest,
  type CommitResult,
  type CommitTranscript,
  CompactionController,
  type CompactStep,
  type PruneStep,
  type StepRequest,
} from './compaction-controller.js';
export type {
  AfterCompactionEvent,
  BeforeCompactionDecision,
  BeforeCompactionEvent,
  CompactionHooks,
} from './compaction-hooks.js';
export {
  type CompactInput,
  type CompactOutcome,
  type Compactor,
  type CompactorOptions,
  createCompactor,
  type EmergencyOutcome,
} from './compactor.js';
export { type CompactionBudgetForOptions, compactionBudgetFor } from './compactor-budget.js';
export { COMPACTION_SHARES } from './compactor-sizes.js';
export {
  defaultToolOutputPlaceholder,
  type PrunedToolOutput,
  type ToolOutputPlaceholder,
} from './helpers/tool-output-placeholder.js';
export {
  ArtifactLedger,
  type ArtifactLedgerData,
  type FileAction,
  type LedgerCommand,
  type LedgerError,
  type LedgerFile,
  type LedgerIdentifier,
} from './ledger/artifact-ledger.js';
export {
  type RenderArtifactTrailOptions,
  type RenderedTrail,
  renderArtifactTrail,
} from './ledger/render-trail.js';
export {
  type PipelineMetadata,
  type PipelineResult,
  type PipelineStep,
  type PipelineStrategy,
  pipeline,
} from './pipeline.js';
export {
  checkPlanUpdate,
  MODEL_PLAN_CONTEXT_NAME,
  PLAN_CONTEXT_NAME,
  type PlanStep,
  type PlanStepStatus,
  type PlanUpdate,
  renderPlan,
  UPDATE_PLAN_TOOL_NAME,
} from './plan/plan.js';
export {
  clipLatestRequest,
  MIN_CLIPPED_REQUEST_TOKENS,
} from './strategies/clip-latest-request.js';
export { clipOversizedRequest } from './strategies/clip-oversized-request.js';
export { type ClipToolResultsOptions, clipToolResults } from './strategies/clip-tool-results.js';
export {
  type DropFailedToolResultsOptions,
  dropFailedToolResults,
} from './strategies/drop-failed-tool-results.js';
export { type DropReasoningOptions, dropReasoning } from './strategies/drop-reasoning.js';
export {
  type EmergencyPruneOptions,
  type EmergencyPruneOutcome,
  type EmergencyPruneTranscriptInput,
  emergencyPrune,
  emergencyPruneTranscript,
} from './strategies/emergency-prune.js';
export { type KeepRecentOptions, keepRecent } from './strategies/keep-recent.js';
export {
  type PruneLargestToolResultsOptions,
  pruneLargestToolResults,
} from './strategies/prune-largest-tool-results.js';
export { type PruneToolResultsOptions, pruneToolResults } from './strategies/prune-tool-results.js';
export { type SummarizeOlderOptions, summarizeOlder } from './strategies/summarize-older.js';
export { summaryInputTokens } from './summarizers/chunk-input.js';
export {
  type ExtractiveSummarizerOptions,
  extractiveSummarizer,
} from './summarizers/extractive.js';
export { type OpenAISummarizerOptions, openAISummarizer } from './summarizers/openai.js';
export { type RenderSummaryInputOptions, renderSummaryInput } from './summarizers/render.js';
export { DEFAULT_SUMMARY_PROMPT } from './summarizers/summary-prompt.js';
export {
  COMPACTION_SUMMARY_NAME,
  createSummaryItem,
  isSummaryItem,
  parseSummarySections,
  SUMMARY_PREAMBLE,
  SUMMARY_SECTIONS,
  type SummaryItem,
  type SummarySection,
  summaryBody,
  validateSummaryText,
} from './summary.js';
export {
  type FitSummaryOptions,
  type FittedSummary,
  fitSummaryText,
  SUMMARY_SHARES,
} from './summary-fit.js';
export { type ToolOutputLimitOptions, toolOutputLimit } from './tool-output-limit.js';
export {
  type ContextWindowTriggerOptions,
  contextWindowTrigger,
} from './triggers/context-window-trigger.js';
export { type ItemCountTriggerOptions, itemCountTrigger } from './triggers/item-count-trigger.js';
export {
  type TokenBudgetTriggerOptions,
  tokenBudgetTrigger,
} from './triggers/token-budget-trigger.js';
export type {
  CompactionBackend,
  CompactionBudget,
  CompactionContext,
  CompactionReason,
  CompactionRequest,
  CompactionResult,
  CompactionStrategy,
  CompactionTier,
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
} from './types.js';
