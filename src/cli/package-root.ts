import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CommandError } from './command-error.js';

/**
 * The directory of loopkeeper's own package.json, found by walking up from this file. The
 * same code runs from `src/cli` (through tsx) and from `dist/src/cli` (built), so a fixed
 * relative path would be right in only one of them.
 */
export function findPackageRoot({ from = import.meta.url }: { from?: string } = {}): string {
  let directory = dirname(from.startsWith('file:') ? fileURLToPath(from) : from);
  for (;;) {
    const manifest = join(directory, 'package.json');
    if (existsSync(manifest) && readPackageName(manifest) === 'loopkeeper') return directory;
    const parent = dirname(directory);
    if (parent === directory) {
      throw new CommandError(`Could not find the loopkeeper package.json above ${from}`, {
        code: 'package_root_missing',
      });
    }
    directory = parent;
  }
}

function readPackageName(manifest: string): unknown {
  try {
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name;
  } catch {
    return undefined;
  }
}
