import { CompactionError } from '../errors/compaction-error.js';
import type { TokenCounter } from '../tokens/types.js';
import type { Item } from '../transcript/types.js';
import { compactionBudgetFor } from './compactor-budget.js';
import { assertCompactorOptions } from './compactor-options.js';
import { summaryCapFor } from './compactor-sizes.js';
import type {
  CompactInput,
  CompactOutcome,
  Compactor,
  CompactorOptions,
  EmergencyOutcome,
  EmergencyPruneInput,
} from './compactor-types.js';
import { replacedItemId } from './helpers/derived-item.js';
import { requireNonNegative } from './helpers/options.js';
import { latestTurnStart, turnSpans } from './helpers/structure.js';
import { pipeline } from './pipeline.js';
import { dropReasoning } from './strategies/drop-reasoning.js';
import { emergencyPruneTranscript } from './strategies/emergency-prune.js';
import { pruneLargestToolResults } from './strategies/prune-largest-tool-results.js';
import { pruneToolResults } from './strategies/prune-tool-results.js';
import { foldOlderSteps, recordDroppedTurns } from './strategies/record-dropped-turns.js';
import { summarizeOlder } from './strategies/summarize-older.js';
import { isSummaryItem } from './summary.js';
import type {
  CompactionBudget,
  CompactionResult,
  CompactionStrategy,
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
  EmergencyPruneInput,
} from './compactor-types.js';

function sameTranscript(left: readonly Item[], right: readonly Item[]): boolean {
  return (
    left === right ||
    (left.length === right.length && left.every((item, index) => item === right[index]))
  );
}

/**
 * The original of each item a strategy changed during this compaction (found in its input by
 * the id the copy stands in for), falling back to what the log knows of older copies.
 */
function originalsWithin(
  input: readonly Item[],
  logOriginalOf: ((item: Item) => Item | undefined) | undefined,
): (item: Item) => Item | undefined {
  let byId: Map<string, Item> | undefined;
  return (item) => {
    const origin = replacedItemId(item);
    if (origin !== undefined) {
      byId ??= new Map(input.map((entry) => [entry.id, entry]));
      const original = byId.get(origin);
      if (original !== undefined) return logOriginalOf?.(original) ?? original;
    }
    return logOriginalOf?.(item);
  };
}

/**
 * Where a compaction counts as effective: half-way between the target and the trigger line.
 * Landing just under the line would trigger again a step later (thrash), so a result above this
 * goes on to the emergency prune, which aims at the target.
 */
function headroomLine(budget: CompactionBudget): number {
  return budget.maxTokens - Math.floor((budget.maxTokens - budget.targetTokens) / 2);
}

function appliedNames(
  strategy: CompactionStrategy,
  before: readonly Item[],
  result: CompactionResult,
): string[] {
  const { applied } = result.metadata;
  if (Array.isArray(applied))
    return applied.filter((name): name is string => typeof name === 'string');
  return sameTranscript(before, result.transcript) ? [] : [strategy.name];
}

/**
 * A compactor with the default tiering: the structural tier first (cheap, keeps the prompt
 * prefix mostly intact); a summary of the older part only if the transcript is still above the
 * budget's target and a backend exists; and, when the summary fails or the result still
 * triggers, the deterministic emergency prune. For a payload-too-large rejection the largest
 * tool outputs are pruned first.
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
  const structuralTier = pipeline(
    dropReasoning(structural.dropReasoning),
    pruneToolResults(structural.pruneToolResults),
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

  function budgetFor(input: CompactInput): {
    decision: TriggerDecision;
    budget: CompactionBudget;
    tokensBefore: number;
  } {
    const decision = evaluate(
      input.reported === undefined
        ? { transcript: input.transcript, tokens: input.tokens }
        : { transcript: input.transcript, tokens: input.tokens, reported: input.reported },
    );
    const tokensBefore = input.tokens.count(input.transcript);
    const budget = compactionBudgetFor({
      reason: input.reason,
      budget: decision.budget,
      tokens: tokensBefore,
    });
    return { decision, budget, tokensBefore };
  }

  function isEffective(
    transcript: readonly Item[],
    tokens: TokenCounter,
    budget: CompactionBudget,
  ): boolean {
    return (
      !trigger.evaluate({ transcript, tokens }).fire &&
      tokens.count(transcript) <= headroomLine(budget)
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
    const context =
      backend === undefined
        ? { tokens, signal, originalOf }
        : { tokens, backend, signal, originalOf };

    const tier1 =
      reason === 'payload-too-large'
        ? largestFirst
        : reason === 'overflow'
          ? largestAfter
          : firstTier;
    const structuralResult = await tier1.apply({ ...request, transcript }, context);
    const strategies = appliedNames(tier1, transcript, structuralResult);
    let current = structuralResult.transcript;
    let tier: CompactionTier = 'structural';
    let summaryMetadata: Readonly<Record<string, unknown>> | undefined;

    const stillAbove =
      tokens.count(current) > budget.targetTokens ||
      trigger.evaluate({ transcript: current, tokens }).fire;
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
      effective: isEffective(current, tokens, budget),
      metadata: {
        trigger: triggerFacts(decision),
        budget,
        structural: structuralResult.metadata,
        ...(summaryMetadata === undefined ? {} : { summary: summaryMetadata }),
      },
    };
  }

  async function emergencyPrune(input: EmergencyPruneInput): Promise<EmergencyOutcome> {
    const { transcript, tokens, reason, signal } = input;
    const { decision, budget, tokensBefore } = budgetFor(input);
    // Structural pruning first: it is deterministic, needs no model, and keeps more history
    // than dropping whole turns does. No backend is passed, so nothing here can call a model.
    const structuralResult = await structuralTier.apply(
      { transcript, reason, budget },
      { tokens, signal },
    );
    const strategies = appliedNames(structuralTier, transcript, structuralResult);
    const maxTokens = emergency.maxTokens ?? budget.targetTokens;
    let structural = structuralResult.transcript;
    let largestMetadata: Readonly<Record<string, unknown>> | undefined;
    // When the latest turn leaves no room for the summary, its largest outputs go first (the
    // model can re-run a tool), so the only memory of the earlier work is not cut to the bone.
    const summaryItem = structural.find(isSummaryItem);
    const summaryRoom = Math.min(
      summaryCapFor(budget),
      summaryItem === undefined ? 0 : tokens.countItem(summaryItem),
    );
    const latestStart = latestTurnStart(structural);
    const latest = structural.slice(latestStart);
    if (tokens.count(latest) + summaryRoom > maxTokens) {
      const largest = pruneLargestToolResults({
        targetTokens: Math.max(0, maxTokens - summaryRoom),
      });
      const result = await largest.apply(
        { transcript: latest, reason, budget },
        { tokens, signal },
      );
      if (result.transcript !== latest) {
        structural = [...structural.slice(0, latestStart), ...result.transcript];
        strategies.push(largest.name);
        largestMetadata = result.metadata;
      }
    }
    // Room for the record of what is dropped, when there are older turns to drop.
    const reserve =
      recordDropped && turnSpans(structural).length > 1
        ? Math.min(summaryCapFor(budget), Math.floor(maxTokens / 2))
        : 0;
    const pruned = emergencyPruneTranscript({
      transcript: structural,
      tokens,
      maxTokens: maxTokens - reserve,
    });
    if (pruned.itemsRemoved > 0 || pruned.summaryTruncated) strategies.push('emergencyPrune');
    const { transcript: prunedTranscript, ...prunedFacts } = pruned;
    let kept = prunedTranscript;
    let recorded = 0;
    if (recordDropped && pruned.itemsRemoved > 0) {
      const record = await recordDroppedTurns({
        before: structural,
        kept,
        maxTokens,
        tokens,
        originalOf: originalsWithin(transcript, input.originalOf),
        signal,
      });
      kept = record.transcript;
      recorded = record.recorded;
      if (recorded > 0) strategies.push('recordDroppedTurns');
    }
    // When the latest turn is a long run of steps too large to keep whole, its older steps are
    // folded into the summary (the request and the newest exchange stay verbatim), rather than
    // the run ending in an overflow.
    if (recordDropped && tokens.count(kept) > maxTokens) {
      const folded = await foldOlderSteps({
        transcript: kept,
        maxTokens,
        tokens,
        originalOf: originalsWithin(transcript, input.originalOf),
        signal,
      });
      if (folded !== kept) {
        kept = folded;
        strategies.push('foldOlderSteps');
      }
    }
    // When even that is too large, the biggest tool outputs go (the model can re-run a tool
    // with a narrower request).
    let output = kept;
    if (tokens.count(kept) > maxTokens) {
      const largest = pruneLargestToolResults({ targetTokens: maxTokens });
      const result = await largest.apply({ transcript: kept, reason, budget }, { tokens, signal });
      largestMetadata = result.metadata;
      if (result.transcript !== kept) strategies.push(largest.name);
      output = result.transcript;
    }
    const tokensAfter = tokens.count(output);
    return {
      transcript: output,
      tier: 'emergency',
      strategies,
      tokensBefore,
      tokensAfter,
      effective: isEffective(output, tokens, budget),
      fits: tokensAfter <= budget.maxTokens,
      metadata: {
        trigger: triggerFacts(decision),
        budget,
        structural: structuralResult.metadata,
        emergency: { ...prunedFacts, itemsRecorded: recorded },
        ...(largestMetadata === undefined ? {} : { largestToolResults: largestMetadata }),
      },
    };
  }

  async function mutate(input: MutationInput): Promise<MutationOutput> {
    const { transcript, tokens, signal, reported } = input;
    const reason = input.reason ?? 'threshold';
    const decision = evaluate(
      reported === undefined ? { transcript, tokens } : { transcript, tokens, reported },
    );
    // A provider refusal or a manual request compacts even when our own estimate says it fits.
    if (!decision.fire && reason === 'threshold') {
      return { dirty: false, metadata: { trigger: triggerFacts(decision) } };
    }
    const compactInput =
      reported === undefined
        ? { transcript, tokens, reason, signal }
        : { transcript, tokens, reason, reported, signal };
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
