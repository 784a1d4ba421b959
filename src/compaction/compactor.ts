import type { Item } from '../transcript/types.js';
import { describeThrownText } from '../vocabulary/index.js';
import { compactionDiff } from './compaction-hooks.js';
import { climbLadder } from './compaction-ladder.js';
import { compactionBudgetFor } from './compactor-budget.js';
import { emergencyPruneWith } from './compactor-emergency.js';
import { assertCompactorOptions } from './compactor-options.js';
import { createItemPreparer } from './compactor-prepare.js';
import {
  addsSummary,
  appliedNames,
  headroomLine,
  originalsWithin,
  sameTranscript,
  triggerInputOf,
} from './compactor-steps.js';
import type {
  CompactInput,
  CompactOutcome,
  Compactor,
  CompactorOptions,
  EmergencyOutcome,
} from './compactor-types.js';
import { resultTokensOf, withKnownTokens } from './helpers/known-tokens.js';
import { requireNonNegative } from './helpers/options.js';
import { pipeline } from './pipeline.js';
import { pinPlan } from './plan/pin-plan.js';
import { planReserveTokens } from './plan/plan.js';
import { clipOversizedRequest } from './strategies/clip-oversized-request.js';
import { clipToolResults } from './strategies/clip-tool-results.js';
import { dropReasoning } from './strategies/drop-reasoning.js';
import { pruneLargestToolResults } from './strategies/prune-largest-tool-results.js';
import { pruneToolResults } from './strategies/prune-tool-results.js';
import { summarizeOlder } from './strategies/summarize-older.js';
import { DEFAULT_TOOL_OUTPUT_SHARE, toolOutputLimit } from './tool-output-limit.js';
import type {
  CompactionBudget,
  CompactionTier,
  MutationInput,
  MutationOutput,
  TriggerDecision,
  TriggerInput,
} from './types.js';

export type {
  CompactInput,
  CompactOutcome,
  Compactor,
  CompactorOptions,
  EmergencyOutcome,
} from './compactor-types.js';

/**
 * A compactor with the default tiering: the structural tier first (cheap, keeps the prompt
 * prefix mostly intact); a summary of the older part only if the transcript is still above the
 * budget's target and a backend exists; and, when the summary fails or the result still
 * triggers, the deterministic emergency prune. For a payload-too-large rejection the largest
 * tool outputs are pruned first.
 *
 * @example
 * ```ts
 * import {
 *   createAgentLoop,
 *   createCompactor,
 *   extractiveSummarizer,
 *   tokenBudgetTrigger,
 * } from 'loopkeeper';
 * import { ScriptedModel } from 'loopkeeper/testing';
 *
 * const compactor = createCompactor({
 *   trigger: tokenBudgetTrigger({ maxTokens: 16_000 }),
 *   backend: extractiveSummarizer(),
 * });
 * const loop = createAgentLoop({ model: new ScriptedModel({ turns: [] }), compactor });
 * ```
 */
export function createCompactor(options: CompactorOptions): Compactor {
  assertCompactorOptions(options);
  return buildCompactor(options);
}

function buildCompactor({
  trigger,
  strategy,
  backend,
  structural = {},
  summary = {},
  emergency = {},
  toolOutputLimit: outputLimit,
  summaryTimeoutMs = 60_000,
  name = 'compactor',
  points = ['AfterToolResult', 'AfterTurnEnded', 'BeforeInference'],
  beforeCompaction,
  afterCompaction,
}: CompactorOptions): Compactor {
  requireNonNegative('createCompactor', 'summaryTimeoutMs', summaryTimeoutMs, { positive: true });
  if (emergency.maxTokens !== undefined) {
    requireNonNegative('createCompactor', 'emergency.maxTokens', emergency.maxTokens);
  }
  const recordDropped = emergency.record ?? true;
  const clipRequest = emergency.clipLatestRequest ?? true;
  const structuralTier = pipeline(
    dropReasoning(structural.dropReasoning),
    pruneToolResults(structural.pruneToolResults),
    ...(structural.clipToolResults === false ? [] : [clipToolResults(structural.clipToolResults)]),
    ...(clipRequest ? [clipOversizedRequest()] : []),
  );
  const outputCap = toolOutputCap(trigger, outputLimit);
  const firstTier = strategy ?? structuralTier;
  // After a 413 one huge output is the usual cause; after an overflow, outputs the model has
  // not read yet (which the structural tier protects) may be what no longer fits.
  const largestFirst = pipeline(pruneLargestToolResults(), firstTier);
  const largestAfter = pipeline(firstTier, pruneLargestToolResults());
  const summaryTier = summarizeOlder({ ...summary, timeoutMs: summaryTimeoutMs });
  // Asked for by the host: everything before the latest request and its newest exchange.
  const manualSummaryTier = summarizeOlder({
    ...summary,
    keepRecentTokens: summary.keepRecentTokens ?? 0,
    timeoutMs: summaryTimeoutMs,
  });

  // The default structural tier's placeholders are written as items arrive, not all at once at
  // the first compaction; a custom first tier prepares nothing.
  const prepare =
    strategy === undefined ? createItemPreparer(structural.pruneToolResults) : undefined;

  /** The budget check a loop makes before each request: the trigger, and the new items prepared. */
  function check(input: TriggerInput): TriggerDecision {
    const decision = trigger.evaluate(input);
    prepare?.(input.transcript, input.tokens, decision.budget);
    return decision;
  }

  function budgetFor(input: CompactInput): {
    decision: TriggerDecision;
    budget: CompactionBudget;
    tokensBefore: number;
  } {
    const decision = input.decision ?? trigger.evaluate(triggerInputOf(input));
    const tokensBefore = input.tokens.count(input.transcript);
    const budget = compactionBudgetFor({
      reason: input.reason,
      budget: decision.budget,
      tokens: tokensBefore,
    });
    return { decision, budget, tokensBefore };
  }

  /**
   * Whether a result is under the budget with headroom (`headroomLine`): landing just under the
   * line would compact again a step later. Judged on the step's budget, so the trigger is not
   * asked again.
   */
  function isEffective(transcript: readonly Item[], budget: CompactionBudget, input: CompactInput) {
    return input.tokens.count(transcript) <= headroomLine(budget);
  }

  function triggerFacts(decision: TriggerDecision): Record<string, unknown> {
    return {
      name: trigger.name,
      fired: decision.fire,
      tokens: decision.tokens,
      basis: decision.basis,
    };
  }

  /** The tiers, with the hooks around them and the plan pinned in the result. */
  async function compact(input: CompactInput): Promise<CompactOutcome> {
    const decision = await beforeCompaction?.({
      transcript: input.transcript,
      reason: input.reason,
      tokens: input.tokens.count(input.transcript),
      ...(input.instructions === undefined ? {} : { instructions: input.instructions }),
    });
    const instructions =
      [input.instructions, decision?.instructions]
        .filter((text): text is string => typeof text === 'string' && text.trim() !== '')
        .join('\n') || undefined;
    const outcome =
      decision?.skip === true
        ? skippedOutcome(input)
        : withPlan(
            input,
            await compactTiers({
              ...input,
              ...(instructions === undefined ? {} : { instructions }),
            }),
          );
    return observed(input, outcome, instructions);
  }

  /** The transcript as it is, with the facts a skipped compaction reports. */
  function skippedOutcome(input: CompactInput): CompactOutcome {
    const { decision, budget, tokensBefore } = budgetFor(input);
    return {
      transcript: input.transcript,
      tier: 'structural',
      strategies: [],
      tokensBefore,
      tokensAfter: tokensBefore,
      effective: isEffective(input.transcript, budget, input),
      budget,
      metadata: { trigger: triggerFacts(decision), budget, skippedBy: 'beforeCompaction' },
    };
  }

  /** The outcome with the latest plan pinned in its transcript (`pinPlan`). */
  function withPlan<Outcome extends CompactOutcome>(
    input: CompactInput,
    outcome: Outcome,
  ): Outcome {
    const transcript = pinPlan(input.transcript, outcome.transcript);
    if (transcript === outcome.transcript) return outcome;
    const { budget } = outcome;
    const tokensAfter = input.tokens.count(transcript);
    const pinned = {
      ...outcome,
      transcript,
      tokensAfter,
      strategies: [...outcome.strategies, 'pinPlan'],
      effective: outcome.effective && isEffective(transcript, budget, input),
    };
    return 'fits' in outcome
      ? { ...pinned, fits: tokensAfter <= (budget.limitTokens ?? budget.maxTokens) }
      : pinned;
  }

  /** Tells `afterCompaction` what changed; what it throws is kept, never raised. */
  async function observed<Outcome extends CompactOutcome>(
    input: CompactInput,
    outcome: Outcome,
    instructions: string | undefined,
  ): Promise<Outcome> {
    if (afterCompaction === undefined || sameTranscript(input.transcript, outcome.transcript)) {
      return outcome;
    }
    try {
      await afterCompaction({
        reason: input.reason,
        tier: outcome.tier,
        strategies: outcome.strategies,
        before: input.transcript,
        after: outcome.transcript,
        ...compactionDiff(input.transcript, outcome.transcript),
        tokensBefore: outcome.tokensBefore,
        tokensAfter: outcome.tokensAfter,
        ...(instructions === undefined ? {} : { instructions }),
      });
      return outcome;
    } catch (error) {
      return {
        ...outcome,
        metadata: { ...outcome.metadata, afterCompactionError: describeThrownText(error) },
      };
    }
  }

  async function compactTiers(input: CompactInput): Promise<CompactOutcome> {
    const { transcript, tokens, reason, signal } = input;
    const { decision, budget, tokensBefore } = budgetFor(input);
    const request = {
      reason,
      budget,
      ...(input.instructions === undefined ? {} : { instructions: input.instructions }),
    };
    const originalOf = originalsWithin(transcript, input.originalOf);
    const context = {
      tokens,
      signal,
      originalOf,
      ...(backend === undefined ? {} : { backend }),
      ...(input.ledger === undefined ? {} : { ledger: input.ledger }),
      ...(input.loop === undefined ? {} : { loop: input.loop }),
    };

    const tier1 =
      reason === 'payload_too_large'
        ? largestFirst
        : reason === 'overflow'
          ? largestAfter
          : firstTier;
    // The tiers are told the totals already counted, so none counts the whole transcript again.
    const structuralResult = await tier1.apply(
      withKnownTokens({ ...request, transcript }, tokens, tokensBefore),
      context,
    );
    const strategies = appliedNames(tier1, transcript, structuralResult);
    let current = structuralResult.transcript;
    // A host strategy that writes a summary (summarizeOlder in a custom pipeline) is a summary.
    let tier: CompactionTier = addsSummary(transcript, current) ? 'summary' : 'structural';
    let summaryMetadata: Readonly<Record<string, unknown>> | undefined;

    const structuralTokens = resultTokensOf(structuralResult, tokens);
    const stillAbove = structuralTokens > budget.targetTokens;
    // Asked for by the host, the summary runs whatever the count: that is what `compact` asks.
    if ((stillAbove || reason === 'manual') && backend !== undefined) {
      const summaryStep = reason === 'manual' ? manualSummaryTier : summaryTier;
      const summaryResult = await summaryStep.apply(
        withKnownTokens({ ...request, transcript: current }, tokens, structuralTokens),
        context,
      );
      summaryMetadata = summaryResult.metadata;
      if (!sameTranscript(current, summaryResult.transcript)) {
        strategies.push(summaryTier.name);
        tier = 'summary';
        current = summaryResult.transcript;
      }
    }
    const tokensAfter = tokens.count(current);
    return {
      transcript: current,
      tier,
      strategies,
      tokensBefore,
      tokensAfter,
      effective: isEffective(current, budget, input),
      budget,
      metadata: {
        trigger: triggerFacts(decision),
        budget,
        structural: structuralResult.metadata,
        ...(summaryMetadata === undefined ? {} : { summary: summaryMetadata }),
      },
    };
  }

  async function emergencyPrune(input: CompactInput): Promise<EmergencyOutcome> {
    const outcome = withPlan(input, await emergencyPruneTiers(input));
    return observed(input, outcome, undefined);
  }

  function emergencyPruneTiers(input: CompactInput): Promise<EmergencyOutcome> {
    // Room for the plan the result pins, when its text is not already up front.
    const reserveTokens = planReserveTokens(input.transcript, input.tokens);
    const deps = {
      reserveTokens,
      structuralTier,
      recordDropped,
      clipRequest,
      budgetFor,
      isEffective,
      triggerFacts,
    };
    return emergencyPruneWith(
      emergency.maxTokens === undefined ? deps : { ...deps, maxTokens: emergency.maxTokens },
      input,
    );
  }

  /** As a plain mutator: when the trigger fires (or a refusal or the host asks), the ladder. */
  async function mutate(input: MutationInput): Promise<MutationOutput> {
    const { transcript } = input;
    const reason = input.reason ?? 'threshold';
    const decision = trigger.evaluate(triggerInputOf(input));
    // A provider refusal or a manual request compacts even when our own estimate says it fits.
    if (!decision.fire && reason === 'threshold') {
      return { dirty: false, metadata: { trigger: triggerFacts(decision) } };
    }
    const { outcome, summaryError } = await climbLadder(
      { trigger, compact, emergencyPrune },
      { ...input, reason, decision },
    );
    const metadata = {
      ...outcome.metadata,
      tier: outcome.tier,
      effective: outcome.effective,
      ...(summaryError === undefined ? {} : { summaryError: summaryError.toJSON() }),
    };
    if (sameTranscript(transcript, outcome.transcript)) return { dirty: false, metadata };
    return {
      dirty: true,
      transcript: outcome.transcript,
      metadata,
      marker: {
        reason,
        tier: outcome.tier,
        strategies: outcome.strategies,
        tokensBefore: outcome.tokensBefore,
        tokensAfter: outcome.tokensAfter,
      },
    };
  }

  return {
    name,
    points,
    trigger,
    ...(backend === undefined ? {} : { backend }),
    ...(outputCap === undefined ? {} : { toolOutputLimit: outputCap }),
    evaluate: check,
    compact,
    emergencyPrune,
    mutate,
  };
}

/** The compactor's cap on new tool outputs: as asked, else a share of the trigger's window. */
function toolOutputCap(
  trigger: CompactorOptions['trigger'],
  option: CompactorOptions['toolOutputLimit'],
): ReturnType<typeof toolOutputLimit> | undefined {
  if (option === false) return undefined;
  if (option !== undefined) return toolOutputLimit({ maxTokens: option.maxTokens });
  if (trigger.window === undefined) return undefined;
  return toolOutputLimit({
    maxTokens: Math.max(1, Math.round(trigger.window * DEFAULT_TOOL_OUTPUT_SHARE)),
  });
}
