import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Directories a listing or search skips: tooling output, never what a question is about. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([
  '.git',
  'node_modules',
  'dist',
  '.loopkeeper',
]);

/**
 * Files and directories under `directory`, breadth-first, in name order. Symlinks are not
 * followed (a link could lead out of the working directory); entries are yielded as found.
 */
export async function* walkEntries({
  directory,
  recursive,
}: {
  directory: string;
  recursive: boolean;
}): AsyncGenerator<{ path: string; isDirectory: boolean }> {
  const queue = [directory];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    let entries: Dirent[];
    try {
      entries = await readdir(next, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((left, right) => left.name.localeCompare(right.name));
    for (const entry of entries) {
      if (entry.isSymbolicLink()) continue;
      const path = join(next, entry.name);
      const isDirectory = entry.isDirectory();
      yield { path, isDirectory };
      if (isDirectory && recursive && !SKIPPED_DIRECTORIES.has(entry.name)) queue.push(path);
    }
  }
}
