import type {
  CompactionStepInput,
  EmergencyPruneOutput,
} from '../../../machines/agent-loop.types.js';
import type { EmergencyOutcome } from '../../compaction/compactor-types.js';
import { CompactionError } from '../../errors/compaction-error.js';
import { MutatorError } from '../../errors/mutator-error.js';
import { validateTranscript } from '../../transcript/validate-transcript.js';
import { loopActor, recordReplacement } from './loop-actor-context.js';
import { withTypedFailures } from './typed-failure.js';

/**
 * Says which part of what every request must hold (the latest turn and the summary of earlier
 * work, besides the instructions and tool schemas) is too large for the budget, in tokens.
 */
function floorDetail({ budget, latestTurnTokens: latest, tokensAfter }: EmergencyOutcome): string {
  const limit = budget.limitTokens ?? budget.maxTokens;
  const summary = Math.max(0, tokensAfter - latest);
  const part =
    latest > limit
      ? `the latest user turn alone is ${latest} tokens`
      : `the latest user turn (${latest} tokens) and the summary of earlier work (${summary} tokens) together are ${tokensAfter} tokens`;
  return `The context cannot be brought under its budget: ${part}, over the ${limit} tokens left for the conversation after the instructions and tool schemas`;
}

/** The deterministic last resort after a failed or ineffective compaction. */
export const emergencyPruneActor = loopActor<EmergencyPruneOutput, CompactionStepInput>(
  async ({ session, compactor, overhead, floor }, { input, signal }) => {
    if (compactor === undefined) throw new MutatorError('No compactor is configured');
    const tokens = await session.tokens();
    const previous = session.items;
    const outcome = await withTypedFailures(
      () =>
        compactor.emergencyPrune({
          transcript: previous,
          tokens,
          reason: input.reason,
          point: input.point,
          signal,
          originalOf: (item) => session.originalOf(item),
          overheadTokens: overhead.measure(session, tokens),
        }),
      (description, cause) =>
        new CompactionError(`The emergency prune failed: ${description}`, {
          cause,
          code: 'emergency_prune_failed',
        }),
    );
    const base = {
      tokensBefore: outcome.tokensBefore,
      tokensAfter: outcome.tokensAfter,
      metadata: outcome.metadata,
    };
    if (validateTranscript(outcome.transcript).length > 0) {
      return { status: 'invalid', changed: false, ...base };
    }
    if (signal.aborted) throw signal.reason;
    const changed = outcome.transcript !== previous;
    if (changed) {
      await recordReplacement(session, input.runId, previous, outcome.transcript, {
        reason: input.reason,
        tier: 'emergency',
        strategies: outcome.strategies,
        tokensBefore: outcome.tokensBefore,
        tokensAfter: outcome.tokensAfter,
      });
    }
    // After a provider refusal, an unchanged transcript would only be refused again.
    const reduced = outcome.tokensAfter < outcome.tokensBefore;
    const fits = outcome.fits && (input.reason === 'threshold' || reduced);
    if (fits) {
      // Over the line but within the window: the next steps hold until the transcript grows.
      if (outcome.tokensAfter > outcome.budget.maxTokens) {
        floor.set({
          runId: input.runId,
          estimate: session.estimateTokens(tokens),
          itemsTokens: outcome.tokensAfter,
        });
      } else {
        floor.clear();
      }
      return { status: 'fits', changed, ...base };
    }
    return {
      status: 'too_large',
      changed,
      ...base,
      detail: floorDetail(outcome),
    };
  },
);
