import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './usage-error.js';

/** Options every command accepts. */
export const COMMON_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  verbose: { type: 'boolean' },
} as const;

type Options = NonNullable<ParseArgsConfig['options']>;

/** What parseArgs gives back for a command's strict configuration. */
export type ParsedCommandLine<CommandOptions extends Options> = ReturnType<
  typeof parseArgs<{
    args: string[];
    options: CommandOptions;
    allowPositionals: true;
    strict: true;
  }>
>;

/**
 * `node:util` parseArgs in strict mode, with its errors turned into `UsageError`s that name the
 * command, so every argument mistake exits with code 2 and the command's usage line.
 */
export function parseCommandLine<const CommandOptions extends Options>({
  command,
  args,
  options,
}: {
  command: string;
  args: readonly string[];
  options: CommandOptions;
}): ParsedCommandLine<CommandOptions> {
  try {
    return parseArgs({
      args: attachNegativeValues({ args, options }),
      options,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(message.replace(/\. To specify a positional argument.*$/s, '.'), {
      command,
    });
  }
}

/**
 * `--window -5` as `--window=-5`: parseArgs calls a value that starts with a dash ambiguous,
 * and its message points at an option syntax users never typed. A value that reads as a
 * number is meant as the value, so it is attached, and the option's own check says what is
 * wrong with it.
 */
function attachNegativeValues({
  args,
  options,
}: {
  args: readonly string[];
  options: Options;
}): string[] {
  const result: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] ?? '';
    const next = args[index + 1];
    const option = arg.startsWith('--') ? options[arg.slice(2)] : undefined;
    if (option?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      result.push(`${arg}=${next}`);
      index += 1;
    } else {
      result.push(arg);
    }
    if (arg === '--') {
      result.push(...args.slice(index + 1));
      break;
    }
  }
  return result;
}

/** A whole number option value from `minimum` to `maximum`; absent gives `fallback`. */
export function integerOption({
  command,
  name,
  value,
  fallback,
  minimum = 1,
  maximum = Number.MAX_SAFE_INTEGER,
}: {
  command: string;
  name: string;
  value: string | undefined;
  fallback: number;
  minimum?: number;
  maximum?: number;
}): number {
  if (value === undefined) return fallback;
  const parsed = Number(value.replaceAll('_', ''));
  if (
    !/^\s*[\d_]+\s*$/.test(value) ||
    !Number.isSafeInteger(parsed) ||
    parsed < minimum ||
    parsed > maximum
  ) {
    const range =
      maximum === Number.MAX_SAFE_INTEGER ? `>= ${minimum}` : `from ${minimum} to ${maximum}`;
    throw new UsageError(`--${name} must be a whole number ${range} (got "${value}")`, {
      command,
    });
  }
  return parsed;
}

/** The highest TCP port. */
export const MAX_PORT = 65_535;

/** Exactly one positional argument per name; the names appear in the error message. */
export function requirePositionals({
  command,
  positionals,
  names,
}: {
  command: string;
  positionals: readonly string[];
  names: readonly string[];
}): string[] {
  if (positionals.length < names.length) {
    throw new UsageError(
      `missing ${names
        .slice(positionals.length)
        .map((name) => `<${name}>`)
        .join(' ')}`,
      {
        command,
      },
    );
  }
  if (positionals.length > names.length) {
    throw new UsageError(
      `unexpected argument "${positionals[names.length]}"${names.length === 0 ? '' : ` after <${names.at(-1)}>`}`,
      { command },
    );
  }
  return [...positionals];
}
