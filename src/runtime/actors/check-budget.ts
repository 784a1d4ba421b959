import type { CheckBudgetInput, CheckBudgetOutput } from '../../../machines/agent-loop.types.js';
import { CompactionError } from '../../errors/compaction-error.js';
import { loopActor } from './loop-actor-context.js';
import { withTypedFailures } from './typed-failure.js';

/** Asks the loop's compaction controller whether the next request is over budget. */
export const checkBudgetActor = loopActor<CheckBudgetOutput, CheckBudgetInput>(
  async ({ session, compaction, overhead }, { input }) => {
    if (compaction === undefined) {
      // Nothing is decided on it: the request's estimate, which may be a bound (LoopSession).
      return { over: false, tokens: (await session.requestEstimate()).tokens, basis: 'estimate' };
    }
    const tokens = await session.tokens();
    const estimate = session.estimateTokens(tokens);
    return withTypedFailures(
      async () =>
        compaction.check({
          runId: input.runId,
          transcript: session.items,
          tokens,
          estimatedTokens: estimate,
          point: input.point,
          overheadTokens: overhead.last(tokens),
          ...(session.reported === undefined ? {} : { reported: session.reported }),
        }),
      (description, cause) =>
        new CompactionError(`The compaction trigger failed: ${description}`, {
          cause,
          code: 'trigger_failed',
        }),
    );
  },
);
