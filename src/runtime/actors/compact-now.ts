import type { CompactNowInput, CompactOutput } from '../../../machines/agent-loop.types.js';
import type { CompactOutcome } from '../../compaction/compactor-types.js';
import { CompactionError } from '../../errors/compaction-error.js';
import { MutatorError } from '../../errors/mutator-error.js';
import { validateTranscript } from '../../transcript/validate-transcript.js';
import { compactingLoop, loopActor, recordReplacement } from './loop-actor-context.js';
import { withTypedFailures } from './typed-failure.js';

/**
 * A compaction the host asked for (`compact`) between runs: the same tiers as one the budget
 * asks for, the emergency prune only when the result (or a failed summary) leaves the
 * transcript over the trigger, at most those two steps (within the loop's compaction cap), and
 * a result that breaks the protocol is refused, never logged.
 */
export const compactNowActor = loopActor<CompactOutput, CompactNowInput>(
  async ({ session, compactor, overhead, floor }, { input, signal, self }) => {
    if (compactor === undefined) {
      throw new MutatorError('The loop has no compactor, so it cannot compact on demand');
    }
    await session.open();
    await session.closeUnclosedRun();
    const tokens = await session.tokens();
    const previous = session.items;
    const started = performance.now();
    const request = {
      transcript: previous,
      tokens,
      reason: 'manual' as const,
      point: 'AfterTurnEnded' as const,
      signal,
      originalOf: (item: (typeof previous)[number]) => session.originalOf(item),
      ledger: session.ledger,
      overheadTokens: overhead.measure(session, tokens),
      loop: compactingLoop(input, self),
      ...(input.instructions === null ? {} : { instructions: input.instructions }),
    };
    const outcome = await withTypedFailures(
      async (): Promise<CompactOutcome> => {
        let result: CompactOutcome | undefined;
        try {
          result = await compactor.compact(request);
        } catch (error) {
          if (!CompactionError.isInstance(error)) throw error;
        }
        const over =
          result === undefined ||
          compactor.evaluate({
            transcript: result.transcript,
            tokens,
            overheadTokens: request.overheadTokens,
            point: request.point,
          }).fire;
        if (!over && result !== undefined) return result;
        return compactor.emergencyPrune({ ...request, transcript: result?.transcript ?? previous });
      },
      (description, cause) =>
        new CompactionError(`The compaction asked for failed: ${description}`, { cause }),
    );
    const base = {
      tier: outcome.tier,
      strategies: outcome.strategies,
      tokensBefore: outcome.tokensBefore,
      tokensAfter: outcome.tokensAfter,
      durationMs: performance.now() - started,
      metadata: outcome.metadata,
    };
    const problems = validateTranscript(outcome.transcript);
    if (problems.length > 0) {
      throw new MutatorError(
        `The compaction asked for broke the tool-call protocol (${problems[0]?.message ?? ''}); nothing was logged`,
      );
    }
    if (signal.aborted) throw signal.reason;
    const changed = outcome.transcript !== previous;
    if (changed) {
      await recordReplacement(session, input.runId, previous, outcome.transcript, {
        reason: 'manual',
        tier: outcome.tier,
        strategies: outcome.strategies,
        tokensBefore: outcome.tokensBefore,
        tokensAfter: outcome.tokensAfter,
      });
      floor.clear();
    }
    return { status: outcome.effective ? 'effective' : 'ineffective', changed, ...base };
  },
);
