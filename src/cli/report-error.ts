import { LoopkeeperError } from '../errors/loopkeeper-error.js';
import { redactSecrets } from '../errors/redact-secrets.js';
import { sliceText } from '../transcript/code-points.js';
import { CliError } from './cli-error.js';

const maxLineLength = 400;

/**
 * An error as one line: its name (when it says something), its message with line breaks
 * folded, cut to a readable length. Stack traces belong to --verbose.
 */
export function describeError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const flat = message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ');
  // loopkeeper's own messages say what went wrong; a foreign error's name (TypeError, ...) helps.
  const own = LoopkeeperError.isInstance(error) || CliError.isInstance(error);
  const name = error instanceof Error && error.name !== 'Error' && !own ? `${error.name}: ` : '';
  const line = `${name}${flat === '' ? 'unknown error' : flat}`;
  const safe = redactSecrets(line);
  return safe.length <= maxLineLength ? safe : `${sliceText(safe, 0, maxLineLength - 1)}…`;
}

/** The full story for --verbose: stack and causes. */
export function describeErrorVerbose(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 5; depth += 1) {
    parts.push(depth === 0 ? stackOf(current) : `Caused by: ${stackOf(current)}`);
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join('\n');
}

function stackOf(error: unknown): string {
  // Causes are what libraries threw (an SDK error quoting a provider's body): redacted here too.
  if (error instanceof Error)
    return redactSecrets(error.stack ?? `${error.name}: ${error.message}`);
  return redactSecrets(String(error));
}
