import type { CompactNowInput, CompactOutput } from '../../../machines/agent-loop.types.js';
import { CompactionError } from '../../errors/compaction-error.js';
import { MutatorError } from '../../errors/mutator-error.js';
import { compactingLoop, compactionCommit, loopActor, stepRequest } from './loop-actor-context.js';
import { withTypedFailures } from './typed-failure.js';

/**
 * A compaction the host asked for (`compact`) between runs: the same tiers as one the budget
 * asks for, the emergency prune only when the result (or a failed summary) leaves the
 * transcript over the trigger line, and a result that breaks the protocol is refused, never
 * logged.
 */
export const compactNowActor = loopActor<CompactOutput, CompactNowInput>(
  async (services, { input, signal, self }) => {
    const { session, compaction } = services;
    if (compaction === undefined) {
      throw new MutatorError('The loop has no compactor, so it cannot compact on demand');
    }
    await session.open();
    await session.closeUnclosedRun();
    const started = performance.now();
    const request = {
      ...(await stepRequest(
        services,
        { ...input, reason: 'manual', point: 'AfterTurnEnded' },
        signal,
      )),
      loop: compactingLoop(input, self),
      ...(input.instructions === null ? {} : { instructions: input.instructions }),
    };
    const step = await withTypedFailures(
      async () =>
        compaction.compactOnDemand(
          request,
          compactionCommit(session, { runId: input.runId, reason: 'manual' }, signal),
        ),
      (description, cause) =>
        new CompactionError(`The compaction asked for failed: ${description}`, { cause }),
    );
    const { outcome } = step;
    if (step.status === 'invalid') {
      throw new MutatorError(
        `The compaction asked for broke the tool-call protocol (${step.problems[0]?.message ?? ''}); nothing was logged`,
      );
    }
    return {
      status: step.status,
      changed: step.changed,
      tier: outcome.tier,
      strategies: outcome.strategies,
      tokensBefore: outcome.tokensBefore,
      tokensAfter: outcome.tokensAfter,
      durationMs: performance.now() - started,
      metadata: outcome.metadata,
    };
  },
);
