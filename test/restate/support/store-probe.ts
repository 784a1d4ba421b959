import * as restate from '@restatedev/restate-sdk';
import { createTokenCounter, LoopkeeperError, LoopSession } from 'loopkeeper';
import type { NewSessionEvent, SessionEvent } from 'loopkeeper/log';
import { DurableSteps } from '../../../src/restate/durable-steps.js';
import { jsonBytes, resolveLimits } from '../../../src/restate/limits.js';
import { RestateStateStore } from '../../../src/restate/state-store.js';

let tokens: ReturnType<typeof createTokenCounter> | undefined;

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

    /**
     * Opens a `LoopSession` on the object's log as a `send` does, through a context that counts
     * the state reads and the bytes they return.
     */
    openCost: async (
      context: restate.ObjectContext,
    ): Promise<{ reads: number; bytes: number; items: string[]; lastSeq: number }> => {
      let reads = 0;
      let bytes = 0;
      const counting = new Proxy(context, {
        get(target, property) {
          if (property === 'get') {
            return (key: string) => {
              reads += 1;
              const read = target.get(key) as unknown as restate.RestatePromise<unknown>;
              return read.map((value, failure) => {
                if (failure !== undefined) throw failure;
                bytes += jsonBytes(value ?? null);
                return value;
              });
            };
          }
          const value = Reflect.get(target, property, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const store = new RestateStateStore({
        context: counting,
        sessionId: context.key,
        steps: new DurableSteps({ context, onCancelled: () => undefined }),
        limits: resolveLimits(),
      });
      tokens ??= createTokenCounter({ encoding: 'o200k_base' });
      const session = new LoopSession({
        store,
        sessionId: context.key,
        tokens,
        interrupted: 'resume',
      });
      await session.open();
      return {
        reads,
        bytes,
        items: session.items.map((item) => item.id),
        lastSeq: session.lastSeq,
      };
    },
  },
  options: { enableLazyState: true },
});
