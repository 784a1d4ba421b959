import type { CheckBudgetInput, CheckBudgetOutput } from '../../../machines/agent-loop.types.js';
import { CompactionError } from '../../errors/compaction-error.js';
import { loopActor } from './loop-actor-context.js';
import { withTypedFailures } from './typed-failure.js';

/**
 * Asks the compactor's trigger whether the next request is over budget. After an emergency
 * prune of this run left the transcript over the line but within the window, the answer is
 * "within" until the transcript has grown past that floor by the hysteresis gap (see
 * `CompactionFloor`).
 */
export const checkBudgetActor = loopActor<CheckBudgetOutput, CheckBudgetInput>(
  async ({ session, compactor, overhead, floor }, { input }) => {
    const tokens = await session.tokens();
    // A compactor runs at the points it declares only (the seed's mutation points); elsewhere the
    // request goes out as it is, and a provider refusal still compacts reactively.
    if (compactor === undefined || !compactor.points.includes(input.point))
      return { over: false, tokens: session.estimateTokens(tokens), basis: 'estimate' };
    const estimate = session.estimateTokens(tokens);
    const decision = await withTypedFailures(
      async () =>
        compactor.evaluate({
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
    const over = decision.fire && !floor.holds(input.runId, estimate, decision.budget);
    return { over, tokens: decision.tokens, basis: decision.basis };
  },
);
