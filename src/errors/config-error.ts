import type { ConfigErrorCode } from './error-codes.js';
import { hasMarker, LoopkeeperError } from './loopkeeper-error.js';

const marker = Symbol.for('loopkeeper.error.config');

/**
 * Options or identifiers given to loopkeeper are not acceptable.
 *
 * @example
 * ```ts
 * import { ConfigError, FileSessionStore } from 'loopkeeper';
 *
 * try {
 *   new FileSessionStore({ directory: '' });
 * } catch (error) {
 *   if (ConfigError.isInstance(error)) console.error(error.code, error.message);
 * }
 * ```
 */
export class ConfigError extends LoopkeeperError {
  readonly [marker] = true;
  declare readonly code: ConfigErrorCode;

  constructor(message: string, options?: { cause?: unknown; code?: ConfigErrorCode }) {
    super(message, { code: options?.code ?? 'config', cause: options?.cause });
    this.name = 'ConfigError';
  }

  static override isInstance(value: unknown): value is ConfigError {
    return hasMarker(value, marker);
  }
}
