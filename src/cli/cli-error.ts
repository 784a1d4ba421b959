import { hasMarker } from '../errors/loopkeeper-error.js';
import { redactSecrets } from '../errors/redact-secrets.js';
import type { CliErrorCode } from './cli-error-codes.js';

const marker = Symbol.for('loopkeeper.cli.error');

/**
 * Base of the errors only the `loopkeeper` command raises. Not a `LoopkeeperError`: its codes
 * are the command's (`CLI_ERROR_CODES`), never the library's, so a host embedding the library
 * never meets one. Messages are redacted as the library's are: they end up on a terminal.
 */
export abstract class CliError<Code extends CliErrorCode = CliErrorCode> extends Error {
  readonly [marker] = true;
  readonly code: Code;

  constructor(message: string, options: { readonly code: Code; readonly cause?: unknown }) {
    super(
      redactSecrets(message),
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.code = options.code;
  }

  static isInstance(value: unknown): value is CliError {
    return hasMarker(value, marker);
  }
}
