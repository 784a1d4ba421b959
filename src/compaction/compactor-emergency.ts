import type { Item } from '../transcript/types.js';
import { summaryCapFor } from './compactor-sizes.js';
import { appliedNames, originalsWithin } from './compactor-steps.js';
import type { CompactInput, EmergencyOutcome } from './compactor-types.js';
import { latestTurnStart, turnSpans } from './helpers/structure.js';
import { clipLatestRequest } from './strategies/clip-latest-request.js';
import { emergencyPruneTranscript } from './strategies/emergency-prune.js';
import { pruneLargestToolResults } from './strategies/prune-largest-tool-results.js';
import { foldOlderSteps, recordDroppedTurns } from './strategies/record-dropped-turns.js';
import { isSummaryItem } from './summary.js';
import type { CompactionBudget, CompactionStrategy, TriggerDecision } from './types.js';

/** What the emergency prune needs from the compactor that runs it. */
export interface EmergencyDeps {
  readonly structuralTier: CompactionStrategy;
  readonly recordDropped: boolean;
  /** Cut the middle of a latest request that cannot fit otherwise (`clipLatestRequest`). */
  readonly clipRequest: boolean;
  /** The most tokens the prune keeps; default the budget's target. */
  readonly maxTokens?: number;
  /** Tokens kept free for what is added after the prune (the pinned plan). */
  readonly reserveTokens?: number;
  budgetFor(input: CompactInput): {
    decision: TriggerDecision;
    budget: CompactionBudget;
    tokensBefore: number;
  };
  isEffective(transcript: readonly Item[], budget: CompactionBudget, input: CompactInput): boolean;
  triggerFacts(decision: TriggerDecision): Record<string, unknown>;
}

/**
 * The deterministic last tier: the structural tier, then the newest whole turns that fit behind
 * the leading summary, with a record of the dropped turns folded into that summary; when the
 * latest turn alone is too large, its older steps are folded, its largest outputs pruned and,
 * last, the middle of its request cut.
 */
export async function emergencyPruneWith(
  deps: EmergencyDeps,
  input: CompactInput,
): Promise<EmergencyOutcome> {
  const { transcript, tokens, reason, signal } = input;
  const { decision, budget, tokensBefore } = deps.budgetFor(input);
  // Structural pruning first: it is deterministic, needs no model, and keeps more history
  // than dropping whole turns does. No backend is passed, so nothing here can call a model.
  const structuralResult = await deps.structuralTier.apply(
    { transcript, reason, budget },
    { tokens, signal },
  );
  const strategies = appliedNames(deps.structuralTier, transcript, structuralResult);
  const maxTokens = Math.max(
    0,
    (deps.maxTokens ?? budget.targetTokens) - (deps.reserveTokens ?? 0),
  );
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
    const result = await largest.apply({ transcript: latest, reason, budget }, { tokens, signal });
    if (result.transcript !== latest) {
      structural = [...structural.slice(0, latestStart), ...result.transcript];
      strategies.push(largest.name);
      largestMetadata = result.metadata;
    }
  }
  // Room for the record of what is dropped, when there are older turns to drop.
  const reserve =
    deps.recordDropped && turnSpans(structural).length > 1
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
  if (deps.recordDropped && pruned.itemsRemoved > 0) {
    const record = await recordDroppedTurns({
      before: structural,
      kept,
      maxTokens,
      tokens,
      originalOf: originalsWithin(transcript, input.originalOf),
      signal,
      ledger: input.ledger,
    });
    kept = record.transcript;
    recorded = record.recorded;
    if (recorded > 0) strategies.push('recordDroppedTurns');
  }
  // When the latest turn is a long run of steps too large to keep whole, its older steps are
  // folded into the summary (the request and the newest exchange stay verbatim), rather than
  // the run ending in an overflow.
  if (deps.recordDropped && tokens.count(kept) > maxTokens) {
    const folded = await foldOlderSteps({
      transcript: kept,
      maxTokens,
      tokens,
      originalOf: originalsWithin(transcript, input.originalOf),
      signal,
      ledger: input.ledger,
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
  // Last of all, a latest request too long to sit beside its newest exchange and the summary
  // has its middle cut in what the model sees (the log keeps it whole), rather than the run
  // ending in an overflow; below a floor of its own the overflow stands.
  if (deps.clipRequest && tokens.count(output) > maxTokens) {
    const clipped = clipLatestRequest(output, tokens, maxTokens);
    if (clipped !== output) {
      output = clipped;
      strategies.push('clipLatestRequest');
    }
  }
  const tokensAfter = tokens.count(output);
  // What cannot be cut further still fits while it is under the hard limit (the window, when
  // the trigger knows one), even above the line: the run goes on rather than overflowing.
  const limit = budget.limitTokens ?? budget.maxTokens;
  return {
    transcript: output,
    tier: 'emergency',
    strategies,
    tokensBefore,
    tokensAfter,
    effective: deps.isEffective(output, budget, input),
    fits: tokensAfter <= limit,
    budget,
    latestTurnTokens: prunedFacts.latestTurnTokens,
    metadata: {
      trigger: deps.triggerFacts(decision),
      budget,
      structural: structuralResult.metadata,
      emergency: { ...prunedFacts, itemsRecorded: recorded },
      ...(largestMetadata === undefined ? {} : { largestToolResults: largestMetadata }),
    },
  };
}
