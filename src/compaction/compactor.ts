import { CompactionError } from '../errors/compaction-error.js';
import type { TokenCounter } from '../tokens/types.js';
import type { Item } from '../transcript/types.js';
import { compactionBudgetFor } from './compactor-budget.js';
import { emergencyPruneWith } from './compactor-emergency.js';
import { assertCompactorOptions } from './compactor-options.js';
import {
  addsSummary,
  appliedNames,
  headroomLine,
  originalsWithin,
  sameTranscript,
} from './compactor-steps.js';
import type {
  CompactInput,
  CompactOutcome,
  Compactor,
  CompactorOptions,
  EmergencyOutcome,
  EmergencyPruneInput,
} from './compactor-types.js';
import { requireNonNegative } from './helpers/options.js';
import { pipeline } from './pipeline.js';
import { clipToolResults } from './strategies/clip-tool-results.js';
import { dropReasoning } from './strategies/drop-reasoning.js';
import { pruneLargestToolResults } from './strategies/prune-largest-tool-results.js';
import { pruneToolResults } from './strategies/prune-tool-results.js';
import { summarizeOlder } from './strategies/summarize-older.js';
import type {
  CompactionBudget,
  CompactionTier,
  MutationInput,
  MutationOutput,
  MutationPoint,
  TriggerDecision,
  TriggerInput,
} from './types.js';

export type {
  CompactInput,
  CompactOutcome,
  Compactor,
  CompactorOptions,
  EmergencyOutcome,
  EmergencyPruneInput,
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
  summaryTimeoutMs = 60_000,
  name = 'compactor',
  points = ['AfterToolResult', 'AfterTurnEnded', 'BeforeInference'],
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
  );
  const firstTier = strategy ?? structuralTier;
  // After a 413 one huge output is the usual cause; after an overflow, outputs the model has
  // not read yet (which the structural tier protects) may be what no longer fits.
  const largestFirst = pipeline(pruneLargestToolResults(), firstTier);
  const largestAfter = pipeline(firstTier, pruneLargestToolResults());
  const summaryTier = summarizeOlder({ ...summary, timeoutMs: summaryTimeoutMs });

  function evaluate(input: TriggerInput): TriggerDecision {
    return trigger.evaluate(input);
  }

  /** The trigger's input for a transcript, with what the caller knows besides it. */
  function triggerInput(
    transcript: readonly Item[],
    tokens: TokenCounter,
    known: {
      readonly reported?: TriggerInput['reported'] | undefined;
      readonly overheadTokens?: number | undefined;
      readonly point?: MutationPoint | undefined;
    },
  ): TriggerInput {
    return {
      transcript,
      tokens,
      ...(known.reported === undefined ? {} : { reported: known.reported }),
      ...(known.overheadTokens === undefined ? {} : { overheadTokens: known.overheadTokens }),
      ...(known.point === undefined ? {} : { point: known.point }),
    };
  }

  function budgetFor(input: CompactInput): {
    decision: TriggerDecision;
    budget: CompactionBudget;
    tokensBefore: number;
  } {
    const decision = evaluate(triggerInput(input.transcript, input.tokens, input));
    const tokensBefore = input.tokens.count(input.transcript);
    const budget = compactionBudgetFor({
      reason: input.reason,
      budget: decision.budget,
      tokens: tokensBefore,
    });
    return { decision, budget, tokensBefore };
  }

  /** The trigger's input for a compacted transcript: the reported usage described the one before. */
  function afterCompaction(transcript: readonly Item[], input: CompactInput): TriggerInput {
    return triggerInput(transcript, input.tokens, {
      overheadTokens: input.overheadTokens,
      point: input.point,
    });
  }

  function isEffective(
    transcript: readonly Item[],
    budget: CompactionBudget,
    input: CompactInput,
  ): boolean {
    return (
      !trigger.evaluate(afterCompaction(transcript, input)).fire &&
      input.tokens.count(transcript) <= headroomLine(budget)
    );
  }

  function triggerFacts(decision: TriggerDecision): Record<string, unknown> {
    return {
      name: trigger.name,
      fired: decision.fire,
      tokens: decision.tokens,
      basis: decision.basis,
    };
  }

  async function compact(input: CompactInput): Promise<CompactOutcome> {
    const { transcript, tokens, reason, signal } = input;
    const { decision, budget, tokensBefore } = budgetFor(input);
    const request = { reason, budget };
    const originalOf = originalsWithin(transcript, input.originalOf);
    const context = {
      tokens,
      signal,
      originalOf,
      ...(backend === undefined ? {} : { backend }),
      ...(input.loop === undefined ? {} : { loop: input.loop }),
    };

    const tier1 =
      reason === 'payload_too_large'
        ? largestFirst
        : reason === 'overflow'
          ? largestAfter
          : firstTier;
    const structuralResult = await tier1.apply({ ...request, transcript }, context);
    const strategies = appliedNames(tier1, transcript, structuralResult);
    let current = structuralResult.transcript;
    // A host strategy that writes a summary (summarizeOlder in a custom pipeline) is a summary.
    let tier: CompactionTier = addsSummary(transcript, current) ? 'summary' : 'structural';
    let summaryMetadata: Readonly<Record<string, unknown>> | undefined;

    const stillAbove =
      tokens.count(current) > budget.targetTokens ||
      trigger.evaluate(afterCompaction(current, input)).fire;
    if (stillAbove && backend !== undefined) {
      const summaryResult = await summaryTier.apply({ ...request, transcript: current }, context);
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
      metadata: {
        trigger: triggerFacts(decision),
        budget,
        structural: structuralResult.metadata,
        ...(summaryMetadata === undefined ? {} : { summary: summaryMetadata }),
      },
    };
  }

  function emergencyPrune(input: EmergencyPruneInput): Promise<EmergencyOutcome> {
    const deps = {
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

  async function mutate(input: MutationInput): Promise<MutationOutput> {
    const { transcript, tokens, signal, reported, point } = input;
    const reason = input.reason ?? 'threshold';
    const decision = evaluate(triggerInput(transcript, tokens, input));
    // A provider refusal or a manual request compacts even when our own estimate says it fits.
    if (!decision.fire && reason === 'threshold') {
      return { dirty: false, metadata: { trigger: triggerFacts(decision) } };
    }
    const compactInput = {
      transcript,
      tokens,
      reason,
      signal,
      point,
      ...(reported === undefined ? {} : { reported }),
      ...(input.overheadTokens === undefined ? {} : { overheadTokens: input.overheadTokens }),
      ...(input.loop === undefined ? {} : { loop: input.loop }),
    };
    let outcome: CompactOutcome;
    let summaryError: CompactionError | undefined;
    try {
      outcome = await compact(compactInput);
    } catch (error) {
      if (!CompactionError.isInstance(error)) throw error;
      summaryError = error;
      outcome = await emergencyPrune(compactInput);
    }
    if (summaryError === undefined && !outcome.effective) {
      // An ineffective compaction goes straight to the emergency prune, as in the loop machine.
      const emergencyOutcome = await emergencyPrune({
        ...compactInput,
        transcript: outcome.transcript,
      });
      outcome = {
        ...emergencyOutcome,
        strategies: [...outcome.strategies, ...emergencyOutcome.strategies],
        tokensBefore: outcome.tokensBefore,
        metadata: { ...emergencyOutcome.metadata, before: outcome.metadata },
      };
    }
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
    evaluate,
    compact,
    emergencyPrune,
    mutate,
  };
}
