import { hasMarker } from '../errors/loopkeeper-error.js';
import { CliError } from './cli-error.js';
import type { UsageErrorCode } from './cli-error-codes.js';

const marker = Symbol.for('loopkeeper.error.usage');

/** The command line itself is wrong (unknown option, missing argument, bad value): exit code 2. */
export class UsageError extends CliError<UsageErrorCode> {
  readonly [marker] = true;
  /** The command whose usage line is shown with the error, when known. */
  readonly command: string | undefined;

  constructor(message: string, options?: { command?: string }) {
    super(message, { code: 'usage' });
    this.name = 'UsageError';
    this.command = options?.command;
  }

  static override isInstance(value: unknown): value is UsageError {
    return hasMarker(value, marker);
  }
}
