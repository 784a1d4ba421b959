import { type FileHandle, mkdtemp, open, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSessionStore, StoreError } from 'loopkeeper';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { user } from '../support/items.js';
import { collect, itemsAppended } from '../support/session-events.js';

/**
 * The file store's write path on a real file, observed through `FileHandle`'s own methods:
 * every append is followed by fsync before it resolves, and a write that fails part-way is cut
 * back so the next batch starts on a line boundary.
 */
let directory: string;
let restore: (() => void) | undefined;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'loopkeeper-durability-'));
});
afterEach(async () => {
  restore?.();
  restore = undefined;
  await rm(directory, { recursive: true, force: true });
});

/** The prototype every `FileHandle` shares, found from a real one. */
async function handlePrototype(): Promise<FileHandle> {
  const handle = await open(join(directory, 'probe'), 'w');
  await handle.close();
  return Object.getPrototypeOf(handle) as FileHandle;
}

describe('FileSessionStore writes', () => {
  it('fsyncs every append batch after its write, before the append resolves', async () => {
    const prototype = await handlePrototype();
    const calls: string[] = [];
    const { sync, write } = prototype;
    prototype.sync = function (this: FileHandle) {
      calls.push('sync');
      return sync.call(this);
    };
    prototype.write = function (this: FileHandle, ...args: unknown[]) {
      calls.push('write');
      return (write as (...values: unknown[]) => Promise<unknown>).apply(this, args);
    } as FileHandle['write'];
    restore = () => {
      prototype.sync = sync;
      prototype.write = write;
    };
    const store = new FileSessionStore({ directory });
    await store.openSession('s');
    for (let batch = 0; batch < 3; batch += 1) {
      calls.length = 0;
      await store.append('s', [itemsAppended([user(`u${batch}`)])]);
      expect(calls).toEqual(['write', 'sync']);
    }
    await store.close();
  });

  it('cuts a write that failed part-way back to the last complete event; the next append and a reopen read clean', async () => {
    const store = new FileSessionStore({ directory });
    await store.append('s', [itemsAppended([user('u1')])]);
    const path = join(directory, 's.jsonl');
    const sizeBefore = (await stat(path)).size;
    const prototype = await handlePrototype();
    const { write } = prototype;
    // Like a disk that fills up: half the batch lands, then ENOSPC.
    prototype.write = async function (this: FileHandle, buffer: unknown, offset: unknown) {
      const bytes = buffer as Buffer;
      const start = typeof offset === 'number' ? offset : 0;
      const half = Math.floor((bytes.length - start) / 2);
      await (write as (...values: unknown[]) => Promise<unknown>).call(this, bytes, start, half);
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    } as FileHandle['write'];
    restore = () => {
      prototype.write = write;
    };
    const failed = await store.append('s', [itemsAppended([user('u2', 'x'.repeat(500))])]).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    restore();
    restore = undefined;
    expect(StoreError.isInstance(failed)).toBe(true);
    expect((await stat(path)).size).toBe(sizeBefore);
    await store.append('s', [itemsAppended([user('u3')])]);
    await store.close();
    const reopened = new FileSessionStore({ directory });
    const events = await collect(reopened.read('s'));
    expect(events.map((event) => event.seq)).toEqual([1, 2]);
    expect((await readFile(path, 'utf8')).split('\n').filter(Boolean)).toHaveLength(2);
    await reopened.close();
  });
});
