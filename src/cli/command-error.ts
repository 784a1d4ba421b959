import { hasMarker } from '../errors/loopkeeper-error.js';
import { CliError } from './cli-error.js';
import type { CommandErrorCode } from './cli-error-codes.js';

const marker = Symbol.for('loopkeeper.cli.error.command');

/**
 * Something the command needs is not usable: a transcript file that cannot be read or is not a
 * transcript, an output that exists, a port in use, a missing optional package, a demo replay
 * that did not complete. Exit code 1.
 */
export class CommandError extends CliError<CommandErrorCode> {
  readonly [marker] = true;

  constructor(message: string, options: { code: CommandErrorCode; cause?: unknown }) {
    super(message, options);
    this.name = 'CommandError';
  }

  static override isInstance(value: unknown): value is CommandError {
    return hasMarker(value, marker);
  }
}
