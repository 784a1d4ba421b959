import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findPackageRoot } from './package-root.js';

/**
 * How to run loopkeeper again, for the hints a command prints (`… show <session>`):
 *
 * - from the sources through tsx (`npm start` in a checkout): `npx tsx src/cli/main.ts`;
 * - `loopkeeper` when a `loopkeeper` on the PATH is this very package's command (a global
 *   install, or a PATH the user set up), so typing it in a shell runs this version;
 * - `npx loopkeeper` otherwise: a project install, run through `npx` or an npm script. npm puts
 *   `node_modules/.bin` on the PATH of what it runs, not of the user's shell, so PATH entries
 *   inside a `node_modules` folder are not counted.
 */
export function loopkeeperCommand({
  moduleUrl = import.meta.url,
  env = process.env,
  binPath,
}: {
  moduleUrl?: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** This package's `bin/loopkeeper.js`; found from the package root by default. */
  binPath?: string;
} = {}): string {
  if (moduleUrl.endsWith('.ts')) return 'npx tsx src/cli/main.ts';
  const own = realPath(
    binPath ?? join(findPackageRoot({ from: fileURLToPath(moduleUrl) }), 'bin', 'loopkeeper.js'),
  );
  const names = process.platform === 'win32' ? ['loopkeeper.cmd', 'loopkeeper'] : ['loopkeeper'];
  for (const directory of (env['PATH'] ?? '').split(delimiter)) {
    if (directory === '' || `${directory}${sep}`.includes(`${sep}node_modules${sep}`)) continue;
    for (const name of names) {
      const candidate = join(directory, name);
      if (own !== undefined && isExecutable(candidate) && realPath(candidate) === own) {
        return 'loopkeeper';
      }
    }
  }
  return 'npx loopkeeper';
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
