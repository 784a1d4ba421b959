import { fromPromise } from 'xstate';
import type { CheckBudgetInput, CheckBudgetOutput } from '../../../machines/agent-loop.types.js';
import type { LoopActorContext } from './loop-actor-context.js';

/** Asks the compactor's trigger whether the next request is over budget. */
export function checkBudgetActor({ session, compactor }: LoopActorContext) {
  return fromPromise<CheckBudgetOutput, CheckBudgetInput>(async () => {
    const tokens = await session.tokens();
    if (compactor === undefined)
      return { over: false, tokens: session.estimateTokens(tokens), basis: 'estimate' };
    const decision = compactor.evaluate({
      transcript: session.items,
      tokens,
      estimatedTokens: session.estimateTokens(tokens),
      ...(session.reported === undefined ? {} : { reported: session.reported }),
    });
    return { over: decision.fire, tokens: decision.tokens, basis: decision.basis };
  });
}
