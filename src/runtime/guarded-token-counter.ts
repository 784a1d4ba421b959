import { ConfigError } from '../errors/config-error.js';
import { LoopkeeperError } from '../errors/loopkeeper-error.js';
import type { TokenCounter } from '../tokens/types.js';
import { describeThrownText } from '../vocabulary/index.js';

/**
 * Wraps a host's token counter so that whatever it throws reaches the run as `ConfigError`
 * (`token_counter_failed`). The loop, its triggers and its strategies all count through it, so
 * a broken counter fails the run with a code that names it, never as `unexpected`.
 */
export function guardTokenCounter(counter: TokenCounter): TokenCounter {
  return {
    encoding: counter.encoding,
    count: (items) => guarded(() => counter.count(items)),
    countItem: (item) => guarded(() => counter.countItem(item)),
    countText: (text) => guarded(() => counter.countText(text)),
  };
}

/** Awaits a host's counter (or its promise), typing a rejection like a throwing count. */
export async function guardedTokenCounter(
  counter: TokenCounter | Promise<TokenCounter>,
): Promise<TokenCounter> {
  try {
    return guardTokenCounter(await counter);
  } catch (error) {
    throw typed(error, 'could not be loaded');
  }
}

function guarded(count: () => number): number {
  try {
    return count();
  } catch (error) {
    throw typed(error, 'failed');
  }
}

function typed(error: unknown, what: string): LoopkeeperError {
  if (LoopkeeperError.isInstance(error)) return error;
  return new ConfigError(`The host's token counter ${what}: ${describeThrownText(error)}`, {
    cause: error,
    code: 'token_counter_failed',
  });
}
