import type { LoopkeeperErrorCode } from './error-codes.js';
import { redactSecrets } from './redact-secrets.js';

const marker = Symbol.for('loopkeeper.error');

/**
 * Base of every error loopkeeper throws or records. The `Symbol.for` marker makes
 * `isInstance` work across duplicated copies of the package, where `instanceof` would not.
 *
 * @example
 * ```ts
 * import { LoopkeeperError, toChatMessages } from 'loopkeeper';
 *
 * try {
 *   toChatMessages(JSON.parse('[{"kind":"user","id":"u1"}]')); // no content: not a valid item
 * } catch (error) {
 *   // Works across duplicated copies of the package, where instanceof would not.
 *   if (LoopkeeperError.isInstance(error)) console.error(error.code, error.toJSON());
 * }
 * ```
 */
export class LoopkeeperError extends Error {
  readonly [marker] = true;
  readonly code: LoopkeeperErrorCode;

  constructor(
    message: string,
    options: { readonly code: LoopkeeperErrorCode; readonly cause?: unknown },
  ) {
    // Messages quote what providers, proxies and hosts sent, and end up in the log, telemetry,
    // spans and CLI output: a key echoed back in an error body must not.
    super(
      redactSecrets(message),
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'LoopkeeperError';
    this.code = options.code;
  }

  static isInstance(value: unknown): value is LoopkeeperError {
    return hasMarker(value, marker);
  }

  /** A plain, JSON-safe description used in logs and telemetry. */
  toJSON(): { name: string; code: LoopkeeperErrorCode; message: string } {
    return { name: this.name, code: this.code, message: this.message };
  }
}

/**
 * Whether `value` carries `marker`. Total: a Proxy whose `has` trap throws is simply not one of
 * ours, so checking a hostile thrown value never throws.
 */
export function hasMarker(value: unknown, marker: symbol): boolean {
  try {
    return typeof value === 'object' && value !== null && marker in value;
  } catch {
    return false;
  }
}
