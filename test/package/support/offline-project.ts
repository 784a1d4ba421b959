import { readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { packageRoot } from '../../cli/support/cli-process.js';

interface LockEntry {
  readonly dev?: boolean;
  readonly [field: string]: unknown;
}

/**
 * Writes a project that depends on a loopkeeper tarball and on the peer `openai`, with a lock
 * file taken from the repository's own: the tarball plus every runtime package and `openai`
 * at their locked versions. With a lock, `npm ci --offline` needs only the package tarballs,
 * which the npm cache holds once the repository was installed; without one npm would ask the
 * registry for package metadata the cache does not keep.
 */
export async function writeOfflineProject({
  directory,
  tarball,
}: {
  directory: string;
  tarball: string;
}): Promise<void> {
  const read = async (name: string) => JSON.parse(await readFile(join(packageRoot, name), 'utf8'));
  const manifest = await read('package.json');
  const lock = (await read('package-lock.json')) as { packages: Record<string, LockEntry> };
  const openai = lock.packages['node_modules/openai'];
  if (openai === undefined) throw new Error('package-lock.json has no openai entry');
  const dependencies = {
    loopkeeper: `file:${basename(tarball)}`,
    openai: String(openai['version']),
  };
  const packages: Record<string, unknown> = {
    '': { name: 'loopkeeper-e2e', dependencies },
    'node_modules/loopkeeper': {
      version: manifest.version,
      resolved: `file:${basename(tarball)}`,
      dependencies: manifest.dependencies,
      peerDependencies: manifest.peerDependencies,
      // Optional peers (`@opentelemetry/api`) must say so, or npm wants them in the lock.
      peerDependenciesMeta: manifest.peerDependenciesMeta,
      bin: manifest.bin,
      engines: manifest.engines,
    },
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || (entry.dev === true && path !== 'node_modules/openai')) continue;
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...rest } = entry;
    packages[path] = rest;
  }
  const project = { name: 'loopkeeper-e2e', private: true, type: 'module', dependencies };
  await writeFile(join(directory, 'package.json'), `${JSON.stringify(project, null, 2)}\n`);
  await writeFile(
    join(directory, 'package-lock.json'),
    `${JSON.stringify({ name: 'loopkeeper-e2e', lockfileVersion: 3, requires: true, packages }, null, 2)}\n`,
  );
}
