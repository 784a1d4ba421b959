import {
  access,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSessionStore, StoreError } from 'loopkeeper';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { user } from '../support/items.js';
import { rejection } from '../support/rejection.js';
import { collect, itemsAppended } from '../support/session-events.js';

function expectSymlinkRefused(error: unknown, path: string): void {
  expect(StoreError.isInstance(error), `expected a StoreError, got ${String(error)}`).toBe(true);
  expect(error).toMatchObject({ code: 'symlink_refused' });
  expect((error as Error).message).toContain(path);
}

describe('FileSessionStore with symbolic links inside its directory', () => {
  let root: string;
  let directory: string;
  let outside: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'loopkeeper-symlink-'));
    directory = join(root, 'sessions');
    outside = join(root, 'outside');
    await mkdir(directory);
    await mkdir(outside);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('refuses to append to a session log that links to a file outside, which stays as it was', async () => {
    const target = join(outside, 'precious.txt');
    await writeFile(target, 'precious data\n');
    const path = join(directory, 'linked.jsonl');
    await symlink(target, path);
    const store = new FileSessionStore({ directory });
    const error = await rejection(store.append('linked', [itemsAppended([user('a')])]));
    expectSymlinkRefused(error, path);
    expect(await readFile(target, 'utf8')).toBe('precious data\n');
    // Refused before the lock was kept: no lock file is left behind.
    expect((await readdir(directory)).sort()).toEqual(['linked.jsonl']);
    await store.close();
  });

  it('refuses a dangling link instead of creating the file it points to', async () => {
    const target = join(outside, 'created-by-the-store.jsonl');
    const path = join(directory, 'dangling.jsonl');
    await symlink(target, path);
    const store = new FileSessionStore({ directory });
    expectSymlinkRefused(
      await rejection(store.append('dangling', [itemsAppended([user('a')])])),
      path,
    );
    expectSymlinkRefused(await rejection(store.openSession('dangling')), path);
    await expect(access(target)).rejects.toThrow();
    await store.close();
  });

  it('refuses to read a session log that is a link, even to a valid log', async () => {
    const writer = new FileSessionStore({ directory: outside });
    await writer.append('real', [itemsAppended([user('a')])]);
    await writer.close();
    const path = join(directory, 'alias.jsonl');
    await symlink(join(outside, 'real.jsonl'), path);
    const store = new FileSessionStore({ directory });
    expectSymlinkRefused(await rejection(collect(store.read('alias'))), path);
    await store.close();
  });

  it('refuses a lock file that is a link and leaves its target alone', async () => {
    const target = join(outside, 'not-a-lock.txt');
    await writeFile(target, 'keep me\n');
    const lockPath = join(directory, 'locked.lock');
    await symlink(target, lockPath);
    const store = new FileSessionStore({ directory });
    expectSymlinkRefused(
      await rejection(store.append('locked', [itemsAppended([user('a')])])),
      lockPath,
    );
    expect(await readFile(target, 'utf8')).toBe('keep me\n');
    await expect(access(join(directory, 'locked.jsonl'))).rejects.toThrow();
    await store.close();
  });

  it('still writes and reads a session whose directory has a link elsewhere in it', async () => {
    await symlink(join(outside, 'whatever.jsonl'), join(directory, 'other.jsonl'));
    const store = new FileSessionStore({ directory });
    await store.append('plain', [itemsAppended([user('a')])]);
    expect((await collect(store.read('plain'))).map((event) => event.seq)).toEqual([1]);
    await store.close();
  });
});
