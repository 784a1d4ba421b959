import type { TokenCounter } from '../tokens/types.js';
import type { Item } from '../transcript/types.js';
import type { CompactionHooks } from './compaction-hooks.js';
import type { ArtifactLedger } from './ledger/artifact-ledger.js';
import type { ClipToolResultsOptions } from './strategies/clip-tool-results.js';
import type { DropReasoningOptions } from './strategies/drop-reasoning.js';
import type { PruneToolResultsOptions } from './strategies/prune-tool-results.js';
import type { SummarizeOlderOptions } from './strategies/summarize-older.js';
import type {
  CompactingLoop,
  CompactionBackend,
  CompactionBudget,
  CompactionReason,
  CompactionStrategy,
  CompactionTier,
  CompactionTrigger,
  LoopMutator,
  MutationPoint,
  TriggerDecision,
  TriggerInput,
} from './types.js';

/** What one compaction did, with the facts telemetry and the session log record. */
export interface CompactOutcome {
  readonly transcript: readonly Item[];
  readonly tier: CompactionTier;
  /** Names of the strategies that changed the transcript, in order. */
  readonly strategies: readonly string[];
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /**
   * Whether the result is under the step budget with headroom: at or under half-way between
   * the target and the trigger line (`headroomLine`), so the next step does not compact again.
   */
  readonly effective: boolean;
  /** The budget this compaction worked to (the step's budget, lowered after a refusal). */
  readonly budget: CompactionBudget;
  readonly metadata: Record<string, unknown>;
}

export interface EmergencyOutcome extends CompactOutcome {
  /** Whether the result is under the budget's `maxTokens`; false only when the latest turn alone is larger. */
  readonly fits: boolean;
  /** Tokens of the latest turn as the prune found it, for telling what is too large. */
  readonly latestTurnTokens: number;
}

export interface CompactInput {
  readonly transcript: readonly Item[];
  readonly tokens: TokenCounter;
  readonly reason: CompactionReason;
  /**
   * The trigger's decision for this step, when the caller has asked already (the loop's budget
   * check, a `CompactionController`): its budget is the one every tier works to, so the
   * trigger is asked once per step. Without it the compactor asks the trigger once.
   */
  readonly decision?: TriggerDecision;
  readonly reported?: TriggerInput['reported'];
  /** See `TriggerInput.overheadTokens`. */
  readonly overheadTokens?: number;
  readonly signal: AbortSignal;
  /** The log's original of an item that stands in for another (see `CompactionContext`). */
  readonly originalOf?: (item: Item) => Item | undefined;
  /** The session's artifact ledger (the loop passes its own), rendered into every summary. */
  readonly ledger?: ArtifactLedger;
  /** The mutation point the loop compacts at, passed to every trigger call (see `TriggerInput.point`). */
  readonly point?: MutationPoint;
  /** Instructions for the summary (`loop.send({type: 'compact', instructions})`). */
  readonly instructions?: string;
  /** The loop that compacts, passed to the summary backend (see `CompactingLoop`). */
  readonly loop?: CompactingLoop;
}

/**
 * A compactor is a `LoopMutator` (for hosts that run it like any other mutator) that also
 * exposes the steps the loop machine runs as separate states.
 */
export interface Compactor extends LoopMutator {
  readonly trigger: CompactionTrigger;
  readonly backend?: CompactionBackend;
  /**
   * The cap on each step's new tool outputs (`toolOutputLimit`), when the compactor has one:
   * `createAgentLoop` runs it at `AfterToolResult`, after the host's mutators and before the
   * budget check (`compactionPrepareStep` and the LangChain middleware before theirs), so what
   * the model sees is capped and the log keeps every output whole.
   */
  readonly toolOutputLimit?: LoopMutator;
  evaluate(input: TriggerInput): TriggerDecision;
  /**
   * The structural tier, then a summary only if still above the target and a backend exists.
   * Throws `CompactionError` when the summary fails: the caller falls back to `emergencyPrune`.
   */
  compact(input: CompactInput): Promise<CompactOutcome>;
  /** The deterministic last resort: structural pruning, then the newest whole turns that fit. */
  emergencyPrune(input: CompactInput): Promise<EmergencyOutcome>;
}

export interface CompactorOptions {
  /** When to compact; its budget says how far. */
  readonly trigger: CompactionTrigger;
  /** Replaces the default structural tier (`dropReasoning`, `pruneToolResults`, `clipToolResults`). */
  readonly strategy?: CompactionStrategy;
  /** Writes summaries; without one the compactor never summarizes. */
  readonly backend?: CompactionBackend;
  /** Options of the default structural strategies. */
  readonly structural?: {
    readonly dropReasoning?: DropReasoningOptions;
    readonly pruneToolResults?: PruneToolResultsOptions;
    /** Options of `clipToolResults`, the last structural step; `false` leaves large outputs whole. */
    readonly clipToolResults?: ClipToolResultsOptions | false;
  };
  /**
   * The most tokens one new tool output may take when the model first reads it; a larger one
   * reaches the model clipped (head, tail, a note naming the facts cut) and the log keeps it
   * whole (see `toolOutputLimit`). Default 5.5% of the trigger's window
   * (`DEFAULT_TOOL_OUTPUT_SHARE`) when the trigger knows one (`contextWindowTrigger`), else no
   * cap; `false` turns it off.
   */
  readonly toolOutputLimit?: { readonly maxTokens: number } | false;
  /** Options of the summary tier. */
  readonly summary?: Omit<SummarizeOlderOptions, 'timeoutMs'>;
  /** Options of the emergency prune. */
  readonly emergency?: {
    /** The most tokens the emergency prune keeps; default the budget's `targetTokens`. */
    readonly maxTokens?: number;
    /**
     * Fold a deterministic extract of the turns it drops (goal, requests, calls, paths, errors,
     * identifiers) into the leading summary. Default true; no model is involved.
     */
    readonly record?: boolean;
    /**
     * When the latest user request is too long to sit beside its newest exchange and the
     * summary, cut its middle (head and tail verbatim, a note of what was cut) in what the
     * model sees, rather than end the run with a `ContextOverflowError`. The log keeps the whole
     * request. Default true; never below 96 tokens of the request.
     */
    readonly clipLatestRequest?: boolean;
  };
  /** Limit on each summarizer call. Default 60,000 ms. */
  readonly summaryTimeoutMs?: number;
  readonly name?: string;
  /** Where the loop runs it as a mutator. Default all three points. */
  readonly points?: readonly MutationPoint[];
  /** Called before each compaction (add instructions for the summary, or skip). */
  readonly beforeCompaction?: CompactionHooks['beforeCompaction'];
  /** Called after each compaction that changed the transcript (what was dropped and kept). */
  readonly afterCompaction?: CompactionHooks['afterCompaction'];
}
