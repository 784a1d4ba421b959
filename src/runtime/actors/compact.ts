import type { CompactionStepInput, CompactOutput } from '../../../machines/agent-loop.types.js';
import { CompactionError } from '../../errors/compaction-error.js';
import { MutatorError } from '../../errors/mutator-error.js';
import { compactingLoop, compactionCommit, loopActor, stepRequest } from './loop-actor-context.js';
import { withTypedFailures } from './typed-failure.js';

/** The tiered compaction of one step; a result that breaks the protocol is reported, never logged. */
export const compactActor = loopActor<CompactOutput, CompactionStepInput>(
  async (services, { input, signal, self }) => {
    const { session, compaction } = services;
    if (compaction === undefined) throw new MutatorError('No compactor is configured');
    const started = performance.now();
    const step = await withTypedFailures(
      async () =>
        compaction.compact(
          {
            ...(await stepRequest(services, input, signal)),
            loop: compactingLoop(input, self),
          },
          compactionCommit(session, input, signal),
        ),
      (description, cause) =>
        new CompactionError(`The compaction failed: ${description}`, { cause }),
    );
    const { outcome } = step;
    return {
      status: step.status,
      changed: step.status !== 'invalid' && step.changed,
      tier: outcome.tier,
      strategies: outcome.strategies,
      tokensBefore: outcome.tokensBefore,
      tokensAfter: outcome.tokensAfter,
      durationMs: performance.now() - started,
      metadata: outcome.metadata,
    };
  },
);
