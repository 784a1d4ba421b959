import { LoopkeeperError } from '../../errors/loopkeeper-error.js';
import { describeThrownText } from '../../vocabulary/index.js';

/**
 * Runs an actor's work and rethrows anything that is not a `LoopkeeperError` as the typed error
 * `wrap` makes of it, so a run never ends with the untyped `unexpected` code: a host mutator, a
 * custom model or a store that throws a plain `Error` (or a hostile value) still gets a code.
 */
export async function withTypedFailures<T>(
  work: () => Promise<T>,
  wrap: (description: string, cause: unknown) => LoopkeeperError,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (LoopkeeperError.isInstance(error)) throw error;
    throw wrap(describeThrownText(error), error);
  }
}

/** `withTypedFailures` for work that answers without waiting. */
export function withTypedFailuresNow<T>(
  work: () => T,
  wrap: (description: string, cause: unknown) => LoopkeeperError,
): T {
  try {
    return work();
  } catch (error) {
    if (LoopkeeperError.isInstance(error)) throw error;
    throw wrap(describeThrownText(error), error);
  }
}
