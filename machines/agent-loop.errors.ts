/**
 * How the loop machine records a failure: a plain, JSON-safe `SerializedError`. The description
 * comes from `describeThrown`, a pure module that imports nothing; the machine loads no other
 * value from `src/`. The runtime's `serializeError` is this same function.
 */
import { describeThrown } from '../src/errors/describe-thrown.js';
import type { SerializedError } from '../src/events/telemetry-events.js';

/** The marker every loopkeeper error carries (`LoopkeeperError`), a global symbol. */
const loopkeeperMarker = Symbol.for('loopkeeper.error');

function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

function isLoopkeeperError(value: unknown): value is { readonly code: unknown } {
  return (
    safely(() => typeof value === 'object' && value !== null && loopkeeperMarker in value) === true
  );
}

/**
 * A description of any thrown value. Total: a hostile value (a throwing getter, a Proxy) is
 * described, never rethrown. A loopkeeper error keeps its code; anything else is `unexpected`,
 * which the runtime's actors avoid by wrapping what they throw in typed errors.
 *
 * @example
 * ```ts
 * import { serializeError } from 'loopkeeper/runtime';
 *
 * // The JSON-safe shape telemetry and the session log carry for any thrown value.
 * console.log(serializeError(new TypeError('bad input')));
 * console.log(serializeError('a thrown string'));
 * ```
 */
export function serializeFailure(error: unknown): SerializedError {
  const { name, message } = describeThrown(error);
  const code = isLoopkeeperError(error) ? safely(() => error.code) : undefined;
  return { name, code: typeof code === 'string' ? code : 'unexpected', message };
}

/** A failure the machine itself decides on (an overflow, a discarded mutation). */
export function loopFailure(name: string, code: string, message: string): SerializedError {
  return { name, code, message };
}

/** The provider refusals the loop answers by compacting and retrying instead of failing. */
export function providerRefusal(error: unknown): 'overflow' | 'payload_too_large' | null {
  if (!isLoopkeeperError(error)) return null;
  const code = safely(() => error.code);
  if (code === 'model_context_overflow') return 'overflow';
  if (code === 'model_payload_too_large') return 'payload_too_large';
  return null;
}
