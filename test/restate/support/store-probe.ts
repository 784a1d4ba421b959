import * as restate from '@restatedev/restate-sdk';
import { LoopkeeperError } from 'loopkeeper';
import type { NewSessionEvent, SessionEvent } from 'loopkeeper/log';
import { DurableSteps } from '../../../src/restate/durable-steps.js';
import { resolveLimits } from '../../../src/restate/limits.js';
import { RestateStateStore } from '../../../src/restate/state-store.js';

/**
 * A test-only object served beside the loopkeeper one: it drives a `RestateStateStore` over its
 * own state directly, as a writer that lost the answer to an append and sends it again would.
 */
export const storeProbe = restate.object({
  name: 'store-probe',
  handlers: {
    /** Appends `events` at `expectedSeq`; a loopkeeper error comes back as `{code}`. */
    append: async (
      context: restate.ObjectContext,
      input: { events: NewSessionEvent[]; expectedSeq: number },
    ): Promise<{ events: readonly SessionEvent[] } | { code: string }> => {
      const store = new RestateStateStore({
        context,
        sessionId: context.key,
        steps: new DurableSteps({ context, onCancelled: () => undefined }),
        limits: resolveLimits(),
      });
      try {
        return {
          events: await store.append(context.key, input.events, {
            expectedSeq: input.expectedSeq,
          }),
        };
      } catch (error) {
        if (!LoopkeeperError.isInstance(error)) throw error;
        return { code: error.code };
      }
    },
  },
  options: { enableLazyState: true },
});
