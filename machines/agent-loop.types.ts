import type { AnyActorRef, PromiseActorLogic } from 'xstate';
import type { TelemetryEvent } from '../src/events/telemetry-events.js';
import type { ApprovalRequest } from '../src/log/events.js';
import type { ModelUsage } from '../src/model/types.js';
import type { UserItem } from '../src/transcript/types.js';
import type {
  CompactionReason,
  CompactionTier,
  MutationPoint,
  RunOutcome,
  SerializedError,
} from '../src/vocabulary/index.js';

/** What a host mutator declares to the machine: small and serializable. */
export interface MutatorDescriptor {
  readonly name: string;
  readonly points: readonly MutationPoint[];
}

export interface AgentLoopInput {
  /**
   * What the runtime's invoked actors work with (loopkeeper's `LoopServices`: session, model,
   * tools, compactor, telemetry sink), carried for them. The machine never reads it and keeps
   * none of it in its context, which stays small and serializable.
   */
  readonly services?: object;
  readonly sessionId: string;
  /**
   * Tells this loop instance's run ids apart from another process's on the same session, for
   * runs whose sender chose no id: they are `<sessionId>:run-<instance>-<n>`. The runtime passes
   * a random one; without it the ids are `<sessionId>:run-<n>`. Passed in, not read from a
   * clock, so the machine stays deterministic for graph traversal.
   */
  readonly instance?: string;
  readonly maxConsecutiveCompactions?: number;
  readonly maxStepsPerRun?: number;
  readonly mutators?: readonly MutatorDescriptor[];
  /** Name of the compactor, or null when the loop runs without one. */
  readonly compactor?: string | null;
  /**
   * Whether any tool may need a person's approval (`needsApproval`). Without such tools a tool
   * step goes straight to running them, with no approval check.
   */
  readonly approvals?: boolean;
  /** A run the log shows unfinished, to continue in place when the loop starts. */
  readonly resume?: ResumeRun | null;
}

/** The run a loop continues when it starts, as `openAgentLoop` finds it in the log. */
export interface ResumeRun {
  readonly runId: string;
  /** Inferences the run made before it was interrupted. */
  readonly steps: number;
}

/** A host's decision on a call that waits for approval, as the machine queues it. */
export interface ApprovalDecision {
  readonly callId: string;
  readonly approved: boolean;
  readonly reason?: string;
}

export type UserContent = UserItem['content'];

/**
 * The machine's context: small, serializable facts only. The transcript lives in the session log
 * and its in-memory projection, owned by the runtime that provides the actors.
 */
export interface AgentLoopContext {
  readonly sessionId: string;
  /** See `AgentLoopInput.instance`; absent in snapshots persisted before it existed. */
  readonly instance?: string;
  readonly maxConsecutiveCompactions: number;
  readonly maxStepsPerRun: number;
  readonly mutators: readonly MutatorDescriptor[];
  readonly compactor: string | null;
  /** Messages sent while a run was in progress, started in order once the loop is idle. */
  readonly queue: readonly UserContent[];
  /**
   * The run id each queued message asked for (null: the machine makes one), index for index
   * with `queue`. Absent in snapshots persisted before it existed.
   */
  readonly queueRunIds?: readonly (string | null)[];
  readonly message: UserContent | null;
  readonly runId: string | null;
  readonly runs: number;
  /** Inferences started in this run. */
  readonly steps: number;
  /** Entries into `compacting` or `emergencyPruning` since the last successful inference. */
  readonly consecutiveCompactions: number;
  readonly point: MutationPoint | null;
  readonly mutatorIndex: number;
  readonly compactionReason: CompactionReason | null;
  readonly lastUsage: ModelUsage | null;
  readonly lastError: SerializedError | null;
  readonly lastOutcome: RunOutcome | null;
  readonly finishing: {
    readonly outcome: RunOutcome;
    readonly error: SerializedError | null;
  } | null;
  /**
   * The latest `plan.update` not yet logged (as sent; `recordPlan` checks it). Logged when the
   * loop is idle; absent in snapshots persisted before it existed.
   */
  readonly pendingPlan?: unknown;
  /**
   * A `compact` request not yet run, with the instructions of every request since (joined).
   * Run when the loop is idle; absent in snapshots persisted before it existed.
   */
  readonly pendingCompaction?: { readonly instructions: string | null } | null;
  /** See `AgentLoopInput.approvals`. Absent in snapshots persisted before approvals existed. */
  readonly approvals?: boolean;
  /** The run to continue when the loop starts; cleared once it is taken up. */
  readonly resume?: ResumeRun | null;
  /** Whether the current run was continued from the log rather than started by a message. */
  readonly resumed?: boolean;
  /** Calls of the current step that wait for a decision and have none queued yet. */
  readonly awaitingApproval?: readonly string[];
  /** Decisions received and not yet recorded in the log, in the order they arrived. */
  readonly decisions?: readonly ApprovalDecision[];
}

export type AgentLoopEvent =
  | {
      readonly type: 'user.message';
      readonly content: UserContent;
      /**
       * The id its run gets, chosen by the sender so it can tell its own run's events apart
       * (`runTurn` does). Must be unique in the session; otherwise the machine makes one.
       */
      readonly runId?: string;
    }
  | { readonly type: 'abort' }
  /**
   * A person's decision on a call the run waits for (`awaiting_approval`). Ignored unless the
   * call is one the run waits for and has no decision yet; `decide()` checks that and throws.
   */
  | {
      readonly type: 'tool.approval';
      readonly callId: string;
      readonly approved: boolean;
      readonly reason?: string;
    }
  | { readonly type: 'close' }
  /**
   * Compact now (when idle; sent during a run, once it ends), under the same validation and
   * the same tiers as a compaction the budget asks for; `instructions` go to the summary.
   */
  | { readonly type: 'compact'; readonly instructions?: string }
  /**
   * Pins a plan: logged (when idle; sent during a run, once it ends) as a `loopkeeper:plan`
   * context item that every compaction tier keeps verbatim. The latest update replaces the rest.
   */
  | {
      readonly type: 'plan.update';
      readonly plan: readonly { readonly step: string; readonly status: string }[];
      readonly explanation?: string;
    }
  /**
   * Telemetry produced inside an invoked actor (tool calls, text deltas), re-emitted as is. The
   * runtime hands such telemetry to the loop's listeners directly where it can (see
   * `ActorInvocation`); this event is the path when it cannot.
   */
  | { readonly type: 'loop.telemetry'; readonly event: TelemetryEvent };

/**
 * What every invoked actor is given besides its own input: the run it works for, and the loop
 * actor that invoked it. The runtime's actors read their session, model and tools from that
 * loop's logic (public actor API), so the machine needs no per-loop copy. Their telemetry goes to
 * the loop's listeners through the function XState's own `emit` action calls, read structurally
 * from the actor (not public API: a macrostep per event would cost as much as a tool call); where
 * that is missing they send it as `loop.telemetry`, which the machine emits.
 */
export interface ActorInvocation {
  readonly sessionId: string;
  readonly runId: string;
  readonly loop: AnyActorRef;
}

export interface BeginRunInput extends ActorInvocation {
  /** As the host sent it; not yet checked (null or other non-content is refused). */
  readonly content: UserContent | null;
}

export interface CallModelInput extends ActorInvocation {
  readonly step: number;
}
export interface CallModelOutput {
  readonly kind: 'final' | 'toolCalls';
  readonly toolCalls: number;
  readonly usage: ModelUsage | null;
  readonly durationMs: number;
  /** The model that answered and why it stopped, for telemetry. */
  readonly model?: string;
  readonly finishReason?: string;
}

export type RunToolsInput = ActorInvocation;
export interface RunToolsOutput {
  readonly results: number;
  readonly errors: number;
}

export interface RunMutatorInput extends ActorInvocation {
  readonly mutator: string;
  readonly point: MutationPoint;
}
export interface RunMutatorOutput {
  readonly dirty: boolean;
  /** False when the mutated transcript broke the protocol: it was neither logged nor sent. */
  readonly valid: boolean;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly problems?: readonly string[];
}

export interface CheckBudgetInput extends ActorInvocation {
  readonly point: MutationPoint;
}
export interface CheckBudgetOutput {
  readonly over: boolean;
  readonly tokens: number;
  readonly basis: 'reported' | 'estimate';
}

/**
 * The input of the machine's compaction steps (`compact`, `emergencyPrune`); not the
 * compactor's own `CompactInput`, which carries the transcript.
 */
export interface CompactionStepInput extends ActorInvocation {
  readonly reason: CompactionReason;
  readonly attempt: number;
  /** The point the budget was checked at (or, after a refusal, the refused request was built at). */
  readonly point: MutationPoint;
}
export interface CompactOutput {
  readonly status: 'effective' | 'ineffective' | 'invalid';
  /** Whether the loop's transcript changed; false when nothing did or the result was discarded. */
  readonly changed: boolean;
  readonly tier: CompactionTier;
  readonly strategies: readonly string[];
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly durationMs: number;
  readonly metadata: Readonly<Record<string, unknown>>;
}

export interface EmergencyPruneOutput {
  readonly status: 'fits' | 'too_large' | 'invalid';
  /** Whether the loop's transcript changed; false when nothing did or the result was discarded. */
  readonly changed: boolean;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly metadata: Readonly<Record<string, unknown>>;
  /** When too large: which part of the floor (summary, latest turn) does not fit, in tokens. */
  readonly detail?: string;
}

/** A compaction the host asked for while the loop is idle: no run, `runId` is ''. */
export interface CompactNowInput extends ActorInvocation {
  readonly instructions: string | null;
}

/** A plan update to log while the loop is idle, as the host sent it. */
export interface RecordPlanInput extends ActorInvocation {
  readonly update: unknown;
}

/** Where a resumed run goes on: what its log shows it was doing when it stopped. */
export type ResumePoint =
  /** The latest answer called tools that are not all answered: decide and run them. */
  | 'tools'
  /** Every call is answered: at AfterToolResult, then the next inference. */
  | 'toolResults'
  /** The latest answer was final: at AfterTurnEnded, then the run completes. */
  | 'answer'
  /** The run's request was in flight (or not yet sent): send it again. */
  | 'inference';

export interface ResumeRunOutput {
  readonly next: ResumePoint;
}

export interface GateToolsOutput {
  /** Calls of the step that wait for a decision, in call order; empty when none does. */
  readonly awaiting: readonly ApprovalRequest[];
}

export interface RecordDecisionsInput extends ActorInvocation {
  readonly decisions: readonly ApprovalDecision[];
}
export interface RecordDecisionsOutput {
  /** Decisions now in the log, in order (the first `recorded.length` of the input). */
  readonly recorded: readonly (ApprovalDecision & { readonly toolName: string })[];
}

export interface FinishRunInput extends ActorInvocation {
  readonly outcome: RunOutcome;
  readonly steps: number;
  readonly error: SerializedError | null;
}

/** What an actor that only does its work resolves with. */
// biome-ignore lint/suspicious/noConfusingVoidType: the output of a promise actor that returns nothing
type Nothing = void;

/**
 * Every actor the machine invokes, by name, with its input and output: the one table the
 * machine's placeholders, the runtime's implementations (`loopActors`) and the test fakes
 * are typed from.
 */
export interface AgentLoopActorTypes {
  readonly beginRun: { readonly input: BeginRunInput; readonly output: Nothing };
  readonly callModel: { readonly input: CallModelInput; readonly output: CallModelOutput };
  readonly resumeRun: { readonly input: ActorInvocation; readonly output: ResumeRunOutput };
  readonly gateTools: { readonly input: ActorInvocation; readonly output: GateToolsOutput };
  readonly recordDecisions: {
    readonly input: RecordDecisionsInput;
    readonly output: RecordDecisionsOutput;
  };
  readonly runTools: { readonly input: RunToolsInput; readonly output: RunToolsOutput };
  readonly runMutator: { readonly input: RunMutatorInput; readonly output: RunMutatorOutput };
  readonly checkBudget: { readonly input: CheckBudgetInput; readonly output: CheckBudgetOutput };
  readonly compact: { readonly input: CompactionStepInput; readonly output: CompactOutput };
  readonly emergencyPrune: {
    readonly input: CompactionStepInput;
    readonly output: EmergencyPruneOutput;
  };
  readonly finishRun: { readonly input: FinishRunInput; readonly output: Nothing };
  readonly abortRun: { readonly input: FinishRunInput; readonly output: Nothing };
  readonly compactNow: { readonly input: CompactNowInput; readonly output: CompactOutput };
  readonly recordPlan: { readonly input: RecordPlanInput; readonly output: Nothing };
}

export type AgentLoopActorName = keyof AgentLoopActorTypes;

/** An implementation of every actor the machine invokes, as `.provide({actors})` takes them. */
export type AgentLoopActorImplementations = {
  readonly [Name in AgentLoopActorName]: PromiseActorLogic<
    AgentLoopActorTypes[Name]['output'],
    AgentLoopActorTypes[Name]['input']
  >;
};
