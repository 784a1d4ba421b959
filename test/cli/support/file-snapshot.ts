import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The names and content hashes of every file in a directory, to show a command left it alone. */
export async function snapshotDirectory(directory: string): Promise<Record<string, string>> {
  const snapshot: Record<string, string> = {};
  for (const name of (await readdir(directory)).sort()) {
    snapshot[name] = createHash('sha256')
      .update(await readFile(join(directory, name)))
      .digest('hex');
  }
  return snapshot;
}
