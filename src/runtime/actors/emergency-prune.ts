import type {
  CompactionStepInput,
  EmergencyPruneOutput,
} from '../../../machines/agent-loop.types.js';
import { CompactionError } from '../../errors/compaction-error.js';
import { MutatorError } from '../../errors/mutator-error.js';
import { compactionCommit, loopActor, stepRequest } from './loop-actor-context.js';
import { withTypedFailures } from './typed-failure.js';

/** The deterministic last resort after a failed or ineffective compaction. */
export const emergencyPruneActor = loopActor<EmergencyPruneOutput, CompactionStepInput>(
  async (services, { input, signal }) => {
    const { session, compaction } = services;
    if (compaction === undefined) throw new MutatorError('No compactor is configured');
    const step = await withTypedFailures(
      async () =>
        compaction.emergencyPrune(
          await stepRequest(services, input, signal),
          compactionCommit(session, input, signal),
        ),
      (description, cause) =>
        new CompactionError(`The emergency prune failed: ${description}`, {
          cause,
          code: 'emergency_prune_failed',
        }),
    );
    const { outcome } = step;
    const base = {
      tokensBefore: outcome.tokensBefore,
      tokensAfter: outcome.tokensAfter,
      metadata: outcome.metadata,
    };
    if (step.status === 'invalid') return { status: 'invalid', changed: false, ...base };
    if (step.status === 'fits') return { status: 'fits', changed: step.changed, ...base };
    return { status: 'too_large', changed: step.changed, ...base, detail: step.detail };
  },
);
