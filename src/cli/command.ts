import type { OutputStream, Style } from './output/style.js';

/** Everything a command may touch of the outside world, passed in so tests can give their own. */
export interface CliEnvironment {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  readonly stdin?: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

export interface CommandContext extends CliEnvironment {
  /** Styles for stdout and stderr, each off unless that stream is a terminal and NO_COLOR is unset. */
  readonly style: { readonly stdout: Style; readonly stderr: Style };
}

/** One `loopkeeper <name>` command. */
export interface Command {
  readonly name: string;
  /** One line for the overview. */
  readonly summary: string;
  /** The usage line shown with usage errors, e.g. `loopkeeper show <session> [options]`. */
  readonly usage: string;
  /** The full `--help` text. */
  readonly help: string;
  /** Parses its own arguments and runs; resolves with the exit code. */
  run(args: readonly string[], context: CommandContext): Promise<number>;
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
/** Ended by Ctrl+C (SIGINT), as shells report it: 128 + the signal's number, 2. */
export const EXIT_INTERRUPTED = 130;
