import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/cli/output/write-file-atomic.js';

describe('writeFileAtomic', () => {
  let directory: string;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'loopkeeper-atomic-'));
  });

  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('creates or replaces the file with the whole text and leaves nothing else', async () => {
    const path = join(directory, 'out.json');
    await writeFileAtomic({ path, text: 'first' });
    await writeFileAtomic({ path, text: 'second, longer' });
    expect(await readFile(path, 'utf8')).toBe('second, longer');
    expect(await readdir(directory)).toEqual(['out.json']);
  });

  it('keeps what was there and removes its temporary file when the rename fails', async () => {
    // A non-empty directory cannot be replaced by a file, so the last step fails.
    const path = join(directory, 'taken');
    await mkdir(path);
    await writeFile(join(path, 'keep.txt'), 'kept');
    await expect(writeFileAtomic({ path, text: 'new' })).rejects.toThrow();
    expect(await readdir(directory)).toEqual(['taken']);
    expect(await readFile(join(path, 'keep.txt'), 'utf8')).toBe('kept');
  });
});
