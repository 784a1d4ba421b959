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
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(message.replace(/\. To specify a positional argument.*$/s, '.'), {
      command,
    });
  }
}

/** A whole number option value, at least `minimum`; absent gives `fallback`. */
export function integerOption({
  command,
  name,
  value,
  fallback,
  minimum = 1,
}: {
  command: string;
  name: string;
  value: string | undefined;
  fallback: number;
  minimum?: number;
}): number {
  if (value === undefined) return fallback;
  const parsed = Number(value.replaceAll('_', ''));
  if (!/^\s*[\d_]+\s*$/.test(value) || !Number.isSafeInteger(parsed) || parsed < minimum) {
    throw new UsageError(`--${name} must be a whole number >= ${minimum} (got "${value}")`, {
      command,
    });
  }
  return parsed;
}

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
