import type { AnyActorRef } from 'xstate';
import type { TelemetryEvent } from '../events/telemetry-events.js';
import type { TokenCounter } from '../tokens/types.js';
import type { Item } from '../transcript/types.js';
import type { CompactionReason, CompactionTier, MutationPoint } from '../vocabulary/index.js';
import type { ArtifactLedger } from './ledger/artifact-ledger.js';

export type { CompactionReason, CompactionTier, MutationPoint } from '../vocabulary/index.js';

export interface CompactionBudget {
  /** The most tokens the transcript may hold (the trigger line). */
  readonly maxTokens: number;
  /** Where compaction aims, well under `maxTokens`, so it stays rare (hysteresis). */
  readonly targetTokens: number;
  /**
   * The most tokens the transcript can hold at all, when that is more than the trigger line:
   * `contextWindowTrigger` sets it to the window less the output reserve (and the request's
   * overhead). A line set early to keep requests small is where compaction starts and what it
   * aims under, not a wall: when nothing more can go but the latest turn, a transcript under
   * this limit still fits, so the emergency prune does not cut the latest request to the line
   * or end the run in an overflow while the window has room. Absent, `maxTokens` is the limit.
   */
  readonly limitTokens?: number;
}

export interface CompactionRequest {
  readonly transcript: readonly Item[];
  readonly reason: CompactionReason;
  readonly budget: CompactionBudget;
  /**
   * What the host asked the summary to keep or stress (`loop.send({type: 'compact',
   * instructions})`, or a compactor's `beforeCompaction` hook); given to the summary backend.
   */
  readonly instructions?: string;
}

/**
 * The loop a compaction runs for, handed down explicitly (mutation input → compactor →
 * strategy context → summary request) to the backends that need it: the agent summarizer
 * spawns its child loop under `actor` and reports the child's telemetry through `emit`.
 * Absent when no loop compacts (the CLI's `compact`, a host calling a compactor directly).
 */
export interface CompactingLoop {
  readonly sessionId: string;
  readonly runId: string;
  /** The loop's invoked actor doing the compaction: child actors are spawned under it. */
  readonly actor: AnyActorRef;
  /** Hands a telemetry event to the compacting loop's listeners. */
  emit(event: TelemetryEvent): void;
}

export interface CompactionContext {
  readonly tokens: TokenCounter;
  readonly backend?: CompactionBackend;
  readonly signal: AbortSignal;
  /** The loop that compacts, when one does (see `CompactingLoop`). */
  readonly loop?: CompactingLoop;
  /**
   * The original of an item that stands in for another (a pruned tool result), as the session
   * log holds it; undefined for an item that is its own original. Summaries read originals, so
   * what pruning hid from the model still reaches the summary.
   */
  readonly originalOf?: (item: Item) => Item | undefined;
  /**
   * The session's artifact trail (files, commands, errors, identifiers), which summaries render
   * as `## Artifact trail`. The loop passes its own, kept from the log; without one a strategy
   * renders a ledger of the items it sees.
   */
  readonly ledger?: ArtifactLedger;
}

export interface CompactionResult {
  readonly transcript: readonly Item[];
  /** Strategy-specific facts: what was removed, how much, and why it stopped. */
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** One way to make a transcript smaller. Pure over immutable arrays; output is protocol-valid. */
export interface CompactionStrategy {
  readonly name: string;
  apply(request: CompactionRequest, context: CompactionContext): Promise<CompactionResult>;
}

export interface SummaryRequest {
  /** The part of the conversation to summarize; untrusted data. */
  readonly transcript: readonly Item[];
  /** Text of the previous summary, folded forward into the new one. */
  readonly previousSummary?: string;
  /** The host's instructions for this summary (see `CompactionRequest.instructions`). */
  readonly instructions?: string;
  /** The size the summary is cut to afterwards: a backend that writes within it loses nothing to the cut. */
  readonly maxTokens?: number;
  readonly signal: AbortSignal;
  /** The loop that compacts, when one does (see `CompactingLoop`). */
  readonly loop?: CompactingLoop;
}

export interface SummaryResult {
  readonly text: string;
  readonly usage?: { readonly promptTokens: number; readonly completionTokens: number };
}

/** Something that writes summaries: an LLM, or the offline extractive summarizer. */
export interface CompactionBackend {
  readonly name: string;
  /** The most input tokens one `summarize` call may be given; larger input is chunked. */
  readonly maxInputTokens: number;
  summarize(request: SummaryRequest): Promise<SummaryResult>;
}

export interface TriggerInput {
  readonly transcript: readonly Item[];
  readonly tokens: TokenCounter;
  /**
   * `tokens.count(transcript)`, when the caller keeps it incrementally (the loop does), so the
   * check costs O(items added since the last request) instead of O(transcript).
   */
  readonly estimatedTokens?: number;
  /**
   * Provider-reported prompt tokens of the latest request and the items it covered, when known.
   * Triggers then use reported usage plus the estimate of items added since.
   */
  readonly reported?: {
    readonly promptTokens: number;
    /** How many leading items of `transcript` that request contained. */
    readonly itemCount: number;
  };
  /**
   * Tokens of the request outside the transcript (instructions, tool schemas, formatting) as
   * last measured from reported usage. Used on the estimate basis, so a trigger asked right
   * after a compaction (when no report describes the history yet) still counts them.
   */
  readonly overheadTokens?: number;
  /**
   * The mutation point the loop is at when it asks, so a trigger can fire at some points only.
   * Every call inside a loop carries it: the budget check, the compaction with its checks, and
   * the emergency prune. Absent when the caller is not a loop (a manual `compact`, the CLI).
   */
  readonly point?: MutationPoint;
}

export interface TriggerDecision {
  readonly fire: boolean;
  /** Tokens the trigger believes the next request holds. */
  readonly tokens: number;
  /** Whether `tokens` came from provider-reported usage or from our own estimate. */
  readonly basis: 'reported' | 'estimate';
  readonly budget: CompactionBudget;
}

/** A separate predicate deciding when to compact; policy changes never touch strategies. */
export interface CompactionTrigger {
  readonly name: string;
  /**
   * The context window the trigger is set for, in tokens, when it knows one
   * (`contextWindowTrigger` does): `createCompactor` scales its default tool-output cap to it.
   */
  readonly window?: number;
  evaluate(input: TriggerInput): TriggerDecision;
}

export interface MutationInput {
  readonly transcript: readonly Item[];
  readonly tokens: TokenCounter;
  readonly point: MutationPoint;
  readonly reason?: CompactionReason;
  readonly reported?: TriggerInput['reported'];
  readonly overheadTokens?: number;
  readonly signal: AbortSignal;
  /** The session's artifact ledger; the loop passes its own so summaries render the whole trail. */
  readonly ledger?: ArtifactLedger;
  /** Instructions for the summary, when the compaction was asked for with some. */
  readonly instructions?: string;
  /** The loop that runs the mutator (see `CompactingLoop`). */
  readonly loop?: CompactingLoop;
}

export interface MutationMarker {
  readonly reason: CompactionReason;
  readonly tier: CompactionTier;
  readonly strategies: readonly string[];
  readonly tokensBefore: number;
  readonly tokensAfter: number;
}

export type MutationOutput =
  | { readonly dirty: false; readonly metadata?: Readonly<Record<string, unknown>> }
  | {
      readonly dirty: true;
      readonly transcript: readonly Item[];
      readonly metadata: Readonly<Record<string, unknown>>;
      /** Present when the change is a compaction to be recorded as a `transcript-replaced` marker. */
      readonly marker?: MutationMarker;
    };

/** Something the loop runs at its mutation points; a compactor is one. */
export interface LoopMutator {
  readonly name: string;
  readonly points: readonly MutationPoint[];
  mutate(input: MutationInput): Promise<MutationOutput>;
}
