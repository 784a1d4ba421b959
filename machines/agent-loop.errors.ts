/**
 * How the loop machine records a failure: a plain, JSON-safe `SerializedError` from the pure
 * vocabulary module (`src/vocabulary`), the only part of `src/` the machine loads values from.
 */
import { loopkeeperCodeOf, type SerializedError } from '../src/vocabulary/index.js';

/** A failure the machine itself decides on (an overflow, a discarded mutation). */
export function loopFailure(name: string, code: string, message: string): SerializedError {
  return { name, code, message };
}

/** The provider refusals the loop answers by compacting and retrying instead of failing. */
export function providerRefusal(error: unknown): 'overflow' | 'payload_too_large' | null {
  const code = loopkeeperCodeOf(error);
  if (code === 'model_context_overflow') return 'overflow';
  if (code === 'model_payload_too_large') return 'payload_too_large';
  return null;
}
