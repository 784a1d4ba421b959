import { CompactionError } from '../errors/compaction-error.js';
import { triggerInputOf } from './compactor-steps.js';
import type { CompactInput, CompactOutcome, Compactor } from './compactor-types.js';
import type { TriggerDecision } from './types.js';

/** What one climb of the ladder did. */
export interface LadderResult {
  /** The result: the compaction's, or the emergency prune's that followed it. */
  readonly outcome: CompactOutcome;
  /** Why the summary failed, when the emergency prune ran in its place. */
  readonly summaryError?: CompactionError;
}

/**
 * Whether a compaction's result still needs the emergency prune. One asked for by the host
 * (`manual`) needs it only while the result is over the trigger line; any other needs it when
 * the result is not under the line with headroom (`effective`), or the next step would compact
 * again.
 */
export function needsEmergencyPrune(
  outcome: CompactOutcome,
  reason: CompactInput['reason'],
  decision: TriggerDecision,
): boolean {
  return reason === 'manual' ? outcome.tokensAfter > decision.budget.maxTokens : !outcome.effective;
}

/**
 * The compactor's tiers in one call, for callers that do not run them as separate machine
 * states (`Compactor.mutate`, the AI SDK and LangChain integrations, `compact` between runs):
 * the compaction, and the emergency prune when the summary fails or the result still needs it
 * (`needsEmergencyPrune`). The trigger is asked once, and both steps work to its budget.
 */
export async function climbLadder(
  compactor: Pick<Compactor, 'trigger' | 'compact' | 'emergencyPrune'>,
  input: CompactInput,
): Promise<LadderResult> {
  const decision = input.decision ?? compactor.trigger.evaluate(triggerInputOf(input));
  const step = { ...input, decision };
  let outcome: CompactOutcome;
  try {
    outcome = await compactor.compact(step);
  } catch (error) {
    if (!CompactionError.isInstance(error)) throw error;
    return { outcome: await compactor.emergencyPrune(step), summaryError: error };
  }
  if (!needsEmergencyPrune(outcome, input.reason, decision)) return { outcome };
  const pruned = await compactor.emergencyPrune({ ...step, transcript: outcome.transcript });
  return {
    outcome: {
      ...pruned,
      strategies: [...outcome.strategies, ...pruned.strategies],
      tokensBefore: outcome.tokensBefore,
      metadata: { ...pruned.metadata, before: outcome.metadata },
    },
  };
}
