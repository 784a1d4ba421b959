import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES, isLoopkeeperErrorCode } from 'loopkeeper/errors';
import { describe, expect, it } from 'vitest';
import { CLI_ERROR_CODES } from '../../src/cli/cli-error-codes.js';
import { CommandError } from '../../src/cli/command-error.js';
import { describeError } from '../../src/cli/report-error.js';
import { UsageError } from '../../src/cli/usage-error.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

function sources(directory: string): string[] {
  return readdirSync(join(root, directory), { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const cliCodes = Object.values(CLI_ERROR_CODES).flat();
const libraryCodes = Object.values(ERROR_CODES).flat();

describe('CLI_ERROR_CODES (the command-line tool’s own error table)', () => {
  it('shares no code with the library’s ERROR_CODES', () => {
    expect(cliCodes.filter((code) => (libraryCodes as readonly string[]).includes(code))).toEqual(
      [],
    );
    expect(cliCodes.filter((code) => isLoopkeeperErrorCode(code))).toEqual([]);
  });

  it('leaves in the library table only codes the library itself raises (outside src/cli)', () => {
    const library = sources('src')
      .filter((file) => !file.startsWith('src/cli/') && !file.endsWith('error-codes.ts'))
      .map((file) => readFileSync(join(root, file), 'utf8'))
      .join('\n');
    const cliOnly = libraryCodes.filter((code) => !library.includes(`'${code}'`));
    expect(cliOnly).toEqual([]);
  });

  it('the CLI’s errors carry their code and print as their message alone', () => {
    const error = new CommandError('out.json already exists', { code: 'output_exists' });
    expect(CommandError.isInstance(error)).toBe(true);
    expect(UsageError.isInstance(error)).toBe(false);
    expect(error.code).toBe('output_exists');
    expect(describeError(error)).toBe('out.json already exists');
    expect(new UsageError('missing command').code).toBe('usage');
  });
});
