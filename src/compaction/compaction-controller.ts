import type { TokenCounter } from '../tokens/types.js';
import type { Item, ProtocolProblem } from '../transcript/types.js';
import { CompactionFloor } from './compaction-floor.js';
import { climbLadder } from './compaction-ladder.js';
import { triggerInputOf } from './compactor-steps.js';
import type {
  CompactInput,
  CompactOutcome,
  Compactor,
  EmergencyOutcome,
} from './compactor-types.js';
import type { MutationPoint, TriggerDecision, TriggerInput } from './types.js';

/** One budget check: the loop's items and what it knows of the request besides them. */
export interface BudgetCheckRequest {
  readonly runId: string;
  readonly transcript: readonly Item[];
  readonly tokens: TokenCounter;
  readonly point: MutationPoint;
  /** `tokens.count(transcript)`, kept incrementally by the caller. */
  readonly estimatedTokens: number;
  readonly reported?: TriggerInput['reported'];
  readonly overheadTokens?: number;
}

/** What a budget check found. */
export interface BudgetCheck {
  readonly over: boolean;
  readonly tokens: number;
  readonly basis: TriggerDecision['basis'];
}

/** A compaction or prune in a run (`runId` '' between runs); the step's decision is the controller's. */
export type StepRequest = Omit<CompactInput, 'decision'> & { readonly runId: string };

/** What committing a result came to; `invalid` when it breaks the tool-call protocol. */
export type CommitResult =
  | { readonly status: 'changed' | 'unchanged' }
  | { readonly status: 'invalid'; readonly problems: readonly ProtocolProblem[] };

/**
 * Commits a compacted transcript: validates it, checks the abort signal, and records it
 * (nothing is recorded when it is invalid).
 */
export type CommitTranscript = (outcome: CompactOutcome) => Promise<CommitResult>;

/** A result that broke the tool-call protocol and was not recorded. */
interface InvalidStep<Outcome> {
  readonly status: 'invalid';
  readonly outcome: Outcome;
  readonly problems: readonly ProtocolProblem[];
}

/** What a compaction step ended in. */
export type CompactStep =
  | InvalidStep<CompactOutcome>
  | {
      readonly status: 'effective' | 'ineffective';
      readonly changed: boolean;
      readonly outcome: CompactOutcome;
    };

/** What an emergency prune step ended in. */
export type PruneStep =
  | InvalidStep<EmergencyOutcome>
  | { readonly status: 'fits'; readonly changed: boolean; readonly outcome: EmergencyOutcome }
  | {
      readonly status: 'too_large';
      readonly changed: boolean;
      readonly outcome: EmergencyOutcome;
      /** Which part of what every request must hold is too large, in tokens. */
      readonly detail: string;
    };

/**
 * One loop's compaction policy: the single place that asks the trigger, decides whether a
 * result is effective or fits (for a threshold and after a refusal alike), and keeps the
 * hysteresis floor. The loop machine asks it one question per state (`check` in
 * `checkingBudget`, `compact` in `compacting`, `emergencyPrune` in `emergencyPruning`); the
 * caller's `commit` writes a result to the log.
 *
 * The trigger is asked once per step: `check` keeps its decision for the run, and the
 * compaction and prune of that step work to its budget. A step that compacts without a check
 * (a refusal at a point the compactor does not run at, a compaction between runs) asks once.
 *
 * @example
 * ```ts
 * import { createCompactor, createTokenCounter, tokenBudgetTrigger } from 'loopkeeper';
 * import { CompactionController } from 'loopkeeper/compaction';
 *
 * const controller = new CompactionController(
 *   createCompactor({ trigger: tokenBudgetTrigger({ maxTokens: 1_000 }) }),
 * );
 * const tokens = await createTokenCounter();
 * const check = controller.check({
 *   runId: 'run-1',
 *   transcript: [],
 *   tokens,
 *   point: 'BeforeInference',
 *   estimatedTokens: 0,
 * });
 * console.log(check.over); // false
 * ```
 */
export class CompactionController {
  readonly compactor: Compactor;
  readonly #floor = new CompactionFloor();
  /** The decision of the latest budget check, for the compaction and prune of that step. */
  #step: { readonly runId: string; readonly decision: TriggerDecision } | undefined;

  constructor(compactor: Compactor) {
    this.compactor = compactor;
  }

  /**
   * Whether the next request is over budget. A compactor runs at the points it declares only;
   * elsewhere the request goes out as it is (a provider refusal still compacts reactively).
   * After an emergency prune of this run left the transcript over the line but within the
   * window, the answer is "within" until it has grown past that floor (`CompactionFloor`).
   */
  check(request: BudgetCheckRequest): BudgetCheck {
    this.#step = undefined;
    if (!this.compactor.points.includes(request.point)) {
      return { over: false, tokens: request.estimatedTokens, basis: 'estimate' };
    }
    const decision = this.compactor.evaluate({
      transcript: request.transcript,
      tokens: request.tokens,
      estimatedTokens: request.estimatedTokens,
      point: request.point,
      ...(request.overheadTokens === undefined ? {} : { overheadTokens: request.overheadTokens }),
      ...(request.reported === undefined ? {} : { reported: request.reported }),
    });
    this.#step = { runId: request.runId, decision };
    const over =
      decision.fire && !this.#floor.holds(request.runId, request.estimatedTokens, decision.budget);
    return { over, tokens: decision.tokens, basis: decision.basis };
  }

  /**
   * The compaction tiers for one step. Effective when the result is under the budget with
   * headroom and, after a refusal, smaller than before (an unchanged request would only be
   * refused again). Throws `CompactionError` when the summary fails.
   */
  async compact(request: StepRequest, commit: CommitTranscript): Promise<CompactStep> {
    const outcome = await this.compactor.compact(this.#withDecision(request));
    const committed = await commit(outcome);
    if (committed.status === 'invalid') return { ...committed, outcome };
    const effective = outcome.effective && reducedAsAsked(request, outcome);
    if (effective) this.#floor.clear();
    return {
      status: effective ? 'effective' : 'ineffective',
      changed: committed.status === 'changed',
      outcome,
    };
  }

  /**
   * The deterministic last tier for one step. Fits when the result is under the budget's
   * limit and, after a refusal, smaller than before. A result that fits only above the line
   * sets the floor for the run.
   */
  async emergencyPrune(request: StepRequest, commit: CommitTranscript): Promise<PruneStep> {
    const outcome = await this.compactor.emergencyPrune(this.#withDecision(request));
    const committed = await commit(outcome);
    if (committed.status === 'invalid') return { ...committed, outcome };
    const changed = committed.status === 'changed';
    if (!(outcome.fits && reducedAsAsked(request, outcome))) {
      return { status: 'too_large', changed, outcome, detail: tooLargeDetail(outcome) };
    }
    if (outcome.tokensAfter > outcome.budget.maxTokens) {
      this.#floor.set({ runId: request.runId, tokens: outcome.tokensAfter });
    } else {
      this.#floor.clear();
    }
    return { status: 'fits', changed, outcome };
  }

  /**
   * A compaction the host asked for (`reason: 'manual'`): the tiers, then the emergency prune
   * only when the summary failed or the result is still over the trigger line, committed once.
   */
  async compactOnDemand(request: StepRequest, commit: CommitTranscript): Promise<CompactStep> {
    const { outcome } = await climbLadder(this.compactor, this.#withDecision(request));
    const committed = await commit(outcome);
    if (committed.status === 'invalid') return { ...committed, outcome };
    const changed = committed.status === 'changed';
    if (changed) this.#floor.clear();
    return {
      status: outcome.effective ? 'effective' : 'ineffective',
      changed,
      outcome,
    };
  }

  /** The request with this step's decision: the check's, or one asked for now. */
  #withDecision({ runId, ...input }: StepRequest): CompactInput {
    const step = this.#step;
    if (step !== undefined && step.runId === runId && runId !== '') {
      return { ...input, decision: step.decision };
    }
    const decision = this.compactor.trigger.evaluate(triggerInputOf(input));
    if (runId !== '') this.#step = { runId, decision };
    return { ...input, decision };
  }
}

/** After a refusal (`overflow`, `payload_too_large`) a result must also be smaller. */
function reducedAsAsked(request: StepRequest, outcome: CompactOutcome): boolean {
  return request.reason === 'threshold' || outcome.tokensAfter < outcome.tokensBefore;
}

/**
 * Says which part of what every request must hold (the latest turn and the summary of earlier
 * work, besides the instructions and tool schemas) is too large for the budget, in tokens.
 */
function tooLargeDetail({
  budget,
  latestTurnTokens: latest,
  tokensAfter,
}: EmergencyOutcome): string {
  const limit = budget.limitTokens ?? budget.maxTokens;
  const summary = Math.max(0, tokensAfter - latest);
  const part =
    latest > limit
      ? `the latest user turn alone is ${latest} tokens`
      : `the latest user turn (${latest} tokens) and the summary of earlier work (${summary} tokens) together are ${tokensAfter} tokens`;
  return `The context cannot be brought under its budget: ${part}, over the ${limit} tokens left for the conversation after the instructions and tool schemas`;
}
