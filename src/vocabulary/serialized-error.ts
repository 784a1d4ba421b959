import { describeThrown } from './describe-thrown.js';

/**
 * Any failure as telemetry, the session log, the machine context and the durable journal carry
 * it: plain JSON. `code` is a loopkeeper error code, or `unexpected` for anything else.
 */
export interface SerializedError {
  readonly name: string;
  readonly code: string;
  readonly message: string;
}

/** The marker every loopkeeper error carries (`LoopkeeperError`), a global symbol. */
const loopkeeperMarker = Symbol.for('loopkeeper.error');

/**
 * The code of a loopkeeper error, found by its `Symbol.for` marker so it works across
 * duplicated package copies; undefined for anything else. Total: a hostile value (a Proxy whose
 * traps throw, a throwing getter) is simply not one of ours.
 */
export function loopkeeperCodeOf(value: unknown): string | undefined {
  try {
    if (typeof value !== 'object' || value === null || !(loopkeeperMarker in value)) {
      return undefined;
    }
    const { code } = value as { readonly code?: unknown };
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
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
export function serializeError(error: unknown): SerializedError {
  const { name, message } = describeThrown(error);
  return { name, code: loopkeeperCodeOf(error) ?? 'unexpected', message };
}
