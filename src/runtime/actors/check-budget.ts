import type { CheckBudgetInput, CheckBudgetOutput } from '../../../machines/agent-loop.types.js';
import type { CompactionController } from '../../compaction/compaction-controller.js';
import { CompactionError } from '../../errors/compaction-error.js';
import type { TokenCounter } from '../../tokens/types.js';
import type { LoopServices } from '../loop-services.js';
import { loopActorAnsweringNow } from './loop-actor-context.js';
import { withTypedFailuresNow } from './typed-failure.js';

/**
 * Asks the loop's compaction controller whether the next request is over budget. Everything it
 * reads is in memory once the session's counter is loaded, so from then on the answer is given
 * as the actor is created (`loopActorAnsweringNow`); only the first check waits for the counter.
 */
export const checkBudgetActor = loopActorAnsweringNow<CheckBudgetOutput, CheckBudgetInput>(
  (services, input) => {
    const { compaction, session } = services;
    if (compaction === undefined) return withoutCompactor(services);
    const tokens = session.loadedTokens;
    return tokens === undefined ? undefined : checkWith(services, compaction, input, tokens);
  },
  async (services, { input }) => {
    if (services.compaction === undefined) {
      // Nothing is decided on it: the request's estimate, which may be a bound (LoopSession).
      return {
        over: false,
        tokens: (await services.session.requestEstimate()).tokens,
        basis: 'estimate',
      };
    }
    return checkWith(services, services.compaction, input, await services.session.tokens());
  },
);

/** Without a compactor nothing is over: the request's estimate, which may be a bound (LoopSession). */
function withoutCompactor({ session }: LoopServices): CheckBudgetOutput | undefined {
  const estimate = session.requestEstimateNow();
  return estimate === undefined
    ? undefined
    : { over: false, tokens: estimate.tokens, basis: 'estimate' };
}

function checkWith(
  { session, overhead }: LoopServices,
  compaction: CompactionController,
  input: CheckBudgetInput,
  tokens: TokenCounter,
): CheckBudgetOutput {
  const estimate = session.estimateTokens(tokens);
  return withTypedFailuresNow(
    () =>
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
}
