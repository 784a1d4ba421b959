import { type Command, type CommandContext, EXIT_OK } from './command.js';
import type { COMMON_OPTIONS } from './parse-command-line.js';
import { type ParsedCommandLine, parseCommandLine } from './parse-command-line.js';

type CommandOptions = typeof COMMON_OPTIONS &
  NonNullable<Parameters<typeof parseCommandLine>[0]['options']>;

export interface CommandDefinition<Options extends CommandOptions> {
  readonly name: string;
  /** One line for the overview. */
  readonly summary: string;
  readonly usage: string;
  /** The full `--help` text. */
  readonly help: string;
  /** The command's options, including `COMMON_OPTIONS`. */
  readonly options: Options;
  /** Runs with the parsed arguments (never for `--help`); resolves with the exit code. */
  execute(parsed: ParsedCommandLine<Options>, context: CommandContext): Promise<number>;
}

/**
 * A command whose arguments are parsed strictly (mistakes become usage errors, exit 2) and
 * whose `--help` prints its help text, so each command only says what it does.
 */
export function defineCommand<const Options extends CommandOptions>({
  name,
  summary,
  usage,
  help,
  options,
  execute,
}: CommandDefinition<Options>): Command {
  return {
    name,
    summary,
    usage,
    help,
    async run(args, context) {
      const parsed = parseCommandLine({ command: name, args, options });
      if ((parsed.values as { help?: boolean }).help === true) {
        context.stdout.write(`${help}\n`);
        return EXIT_OK;
      }
      return execute(parsed, context);
    },
  };
}
