import { spawnSync } from 'node:child_process';
import {
  appendFile,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  truncate,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSessionStore, StoreError } from 'loopkeeper';
import type { FileSessionStoreOptions, TornLineRecovery } from 'loopkeeper/log';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { user } from '../support/items.js';
import { reseal } from '../support/log-lines.js';
import { rejection } from '../support/rejection.js';
import { collect, itemsAppended } from '../support/session-events.js';

describe('FileSessionStore', () => {
  let directory: string;
  const stores: FileSessionStore[] = [];

  const open = (options: Partial<FileSessionStoreOptions> = {}) => {
    const store = new FileSessionStore({ directory, ...options });
    stores.push(store);
    return store;
  };
  const logPath = (sessionId: string) => join(directory, `${sessionId}.jsonl`);
  const lockPath = (sessionId: string) => join(directory, `${sessionId}.lock`);

  /** Five events in three batches; the log's line i holds seq i. */
  async function writeFiveEvents(sessionId: string): Promise<void> {
    const store = open();
    await store.append(sessionId, [itemsAppended([user('a')]), itemsAppended([user('b')])]);
    await store.append(sessionId, [itemsAppended([user('c')])]);
    await store.append(sessionId, [itemsAppended([user('d')]), itemsAppended([user('e')])]);
    await store.close();
  }

  async function lineStarts(path: string): Promise<number[]> {
    const bytes = await readFile(path);
    const starts = [0];
    for (let index = 0; index < bytes.length; index += 1) {
      if (bytes[index] === 0x0a) starts.push(index + 1);
    }
    return starts;
  }

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'loopkeeper-file-store-'));
  });

  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('writes one JSON line per event to <directory>/<sessionId>.jsonl, creating the directory', async () => {
    directory = join(directory, 'nested', 'sessions');
    const store = open();
    await store.append('s1', [itemsAppended([user('a')]), { type: 'run-started', runId: 'r' }]);
    const text = await readFile(logPath('s1'), 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line).seq)).toEqual([1, 2]);
    expect(JSON.parse(lines[1] ?? '')).toMatchObject({ v: 5, type: 'run-started', runId: 'r' });
    // Each line ends with the CRC-32 of what precedes the field; the events returned omit it.
    for (const line of lines) expect(line).toMatch(/,"crc":"[0-9a-f]{8}"}$/);
    expect(await collect(open().read('s1'))).not.toContainEqual(
      expect.objectContaining({ crc: expect.anything() }),
    );
  });

  it('reads events that span many read chunks and multi-byte characters intact', async () => {
    const store = open();
    const big = '🙂 mixed ascii and emoji '.repeat(20_000);
    await store.append('s1', [itemsAppended([user('big', big)]), itemsAppended([user('after')])]);
    const events = await collect(open().read('s1'));
    expect(events[0]).toMatchObject({ items: [{ content: big }] });
    expect(events[1]).toMatchObject({ items: [{ id: 'after' }] });
  });

  it('after a crash mid-line keeps every complete event, cuts the torn one, and continues the seq', async () => {
    await writeFiveEvents('s1');
    const starts = await lineStarts(logPath('s1'));
    const tornAt = (starts[4] ?? 0) + 10; // ten bytes into line 5
    await truncate(logPath('s1'), tornAt);

    // Readers never see the torn line, even before a writer has recovered the file.
    const reader = open();
    expect((await collect(reader.read('s1'))).map((event) => event.seq)).toEqual([1, 2, 3, 4]);

    const recoveries: TornLineRecovery[] = [];
    const writer = open({ onRecovery: (recovery) => recoveries.push(recovery) });
    expect(await writer.openSession('s1')).toEqual({ lastSeq: 4 });
    expect(recoveries).toEqual([
      { sessionId: 's1', path: logPath('s1'), lineNumber: 5, bytes: 10 },
    ]);
    expect((await stat(logPath('s1'))).size).toBe(starts[4]);

    const [next] = await writer.append('s1', [itemsAppended([user('f')])], { expectedSeq: 4 });
    expect(next?.seq).toBe(5);
    const events = await collect(reader.read('s1'));
    expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(
      events
        .flatMap((event) => (event.type === 'items-appended' ? event.items : []))
        .map((item) => item.id),
    ).toEqual(['a', 'b', 'c', 'd', 'f']);
  });

  it.each([
    ['an unterminated start of a line', '{"v":2,"seq":6,"at":"x","ty'],
    ['NUL bytes a power loss can leave', '\u0000'.repeat(300)],
  ])('treats %s as torn and cuts it away', async (_label, tail) => {
    await writeFiveEvents('s1');
    const sizeBefore = (await stat(logPath('s1'))).size;
    await appendFile(logPath('s1'), tail);
    expect((await collect(open().read('s1'))).length).toBe(5);
    const store = open();
    expect(await store.openSession('s1')).toEqual({ lastSeq: 5 });
    expect((await stat(logPath('s1'))).size).toBe(sizeBefore);
  });

  it('refuses a corrupt middle line with StoreError naming file and line, and changes nothing', async () => {
    await writeFiveEvents('s1');
    const original = await readFile(logPath('s1'), 'utf8');
    const lines = original.split('\n');
    lines[2] = '{"v":1,"seq":3,"at":"2026-11-29T12:00:00.000Z","type":"items-app';
    await writeFile(logPath('s1'), lines.join('\n'));
    const corrupted = await readFile(logPath('s1'));

    const readError = await rejection(collect(open().read('s1')));
    expect(StoreError.isInstance(readError)).toBe(true);
    expect(readError).toMatchObject({ code: 'corrupt_log' });
    expect((readError as Error).message).toContain(logPath('s1'));
    expect((readError as Error).message).toContain('line 3');

    const writeError = await rejection(open().append('s1', [itemsAppended([user('x')])]));
    expect((writeError as Error).message).toContain('line 3');
    expect(await readFile(logPath('s1'))).toEqual(corrupted);
    // A failed open gives its lock back.
    await expect(stat(lockPath('s1'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a line whose seq breaks the sequence', async () => {
    await writeFiveEvents('s1');
    const lines = (await readFile(logPath('s1'), 'utf8')).split('\n');
    lines[3] = reseal((lines[3] ?? '').replace('"seq":4', '"seq":7'));
    await writeFile(logPath('s1'), lines.join('\n'));
    const error = await rejection(collect(open().read('s1')));
    expect((error as Error).message).toMatch(/line 4: expected seq 4, found 7/);
  });

  it('refuses a schema version it does not know with StoreError', async () => {
    await writeFiveEvents('s1');
    const lines = (await readFile(logPath('s1'), 'utf8')).split('\n');
    lines[1] = reseal((lines[1] ?? '').replace('"v":5', '"v":6'));
    await writeFile(logPath('s1'), lines.join('\n'));
    const error = await rejection(collect(open().read('s1')));
    expect(StoreError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'unsupported_schema_version' });
    expect((error as Error).message).toContain('line 2');
  });

  it('reads the kebab-case values of schema 2 logs with their snake_case spelling', async () => {
    await writeFiveEvents('s1');
    const store = open();
    await store.append('s1', [
      { type: 'run-finished', runId: 'old', outcome: 'step_limit', steps: 50 },
      {
        type: 'transcript-replaced',
        runId: 'old',
        throughSeq: 5,
        view: [],
        reason: 'payload_too_large',
        tier: 'structural',
        strategies: [],
        tokensBefore: 10,
        tokensAfter: 5,
      },
    ]);
    await store.close();
    // Rewrite the two lines as schema 2 wrote them: version 2, kebab-case values.
    const lines = (await readFile(logPath('s1'), 'utf8')).split('\n');
    for (const index of [5, 6]) {
      lines[index] = reseal(
        (lines[index] ?? '')
          .replace('"v":5', '"v":2')
          .replace('"step_limit"', '"step-limit"')
          .replace('"payload_too_large"', '"payload-too-large"'),
      );
    }
    await writeFile(logPath('s1'), lines.join('\n'));
    const events = await collect(open().read('s1'));
    expect(events[5]).toMatchObject({ v: 2, type: 'run-finished', outcome: 'step_limit' });
    expect(events[6]).toMatchObject({
      v: 2,
      type: 'transcript-replaced',
      reason: 'payload_too_large',
    });
    // Only older versions are upgraded: a current line is read exactly as written.
    expect(events[4]).toMatchObject({ v: 5 });
  });

  describe('single-writer lock', () => {
    it('refuses a second store on the same session, even in the same process, while reads stay allowed', async () => {
      const first = open();
      const second = open();
      await first.append('s1', [itemsAppended([user('a')])]);
      expect(JSON.parse(await readFile(lockPath('s1'), 'utf8'))).toMatchObject({
        lock: 2,
        pid: process.pid,
      });

      const error = await rejection(second.append('s1', [itemsAppended([user('b')])]));
      expect(StoreError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'session_locked' });
      expect((error as Error).message).toContain(`process ${process.pid} (this process)`);
      await expect(second.openSession('s1')).rejects.toMatchObject({ code: 'session_locked' });

      // Other sessions and reading the locked one are fine.
      await second.append('s2', [itemsAppended([user('c')])]);
      expect((await collect(second.read('s1'))).length).toBe(1);

      await first.close();
      await expect(stat(lockPath('s1'))).rejects.toMatchObject({ code: 'ENOENT' });
      const [next] = await second.append('s1', [itemsAppended([user('b')])], {
        expectedSeq: 1,
      });
      expect(next?.seq).toBe(2);
    });

    it('takes over a lock left by a process that no longer runs', async () => {
      await writeFiveEvents('s1');
      const exited = spawnSync(process.execPath, ['-e', '0']);
      expect(exited.status).toBe(0);
      await writeFile(lockPath('s1'), `${exited.pid}\n`);
      const store = open();
      const [next] = await store.append('s1', [itemsAppended([user('f')])]);
      expect(next?.seq).toBe(6);
      expect(JSON.parse(await readFile(lockPath('s1'), 'utf8'))).toMatchObject({
        pid: process.pid,
      });
      expect((await readdir(directory)).sort()).toEqual(['s1.jsonl', 's1.lock']);
    });

    it('refuses a lock file that names no pid rather than guess', async () => {
      await writeFile(lockPath('s1'), '');
      const error = await rejection(open().append('s1', [itemsAppended([])]));
      expect(error).toMatchObject({ code: 'session_locked' });
      expect((error as Error).message).toMatch(/names no process/);
    });
  });

  it('lists only session logs, not locks or other files', async () => {
    const store = open();
    await store.append('b', [itemsAppended([])]);
    await store.append('a', [itemsAppended([user('x')])]);
    await writeFile(join(directory, 'notes.txt'), 'hello');
    await writeFile(join(directory, '.hidden.jsonl'), '');
    expect(await store.list()).toEqual(['a', 'b']);
  });

  // chmod 000 does not stop root (these tests run as root), so an unusable directory is
  // simulated honestly with a path that is a regular file.
  it('reports a directory path that is a file as StoreError, not a crash', async () => {
    const filePath = join(directory, 'not-a-directory');
    await writeFile(filePath, 'x');
    const store = new FileSessionStore({ directory: filePath });
    stores.push(store);
    const appendError = await rejection(store.append('s1', [itemsAppended([])]));
    expect(StoreError.isInstance(appendError)).toBe(true);
    expect((appendError as Error).message).toContain(filePath);
    expect(StoreError.isInstance(await rejection(store.list()))).toBe(true);
    expect(StoreError.isInstance(await rejection(collect(store.read('s1'))))).toBe(true);
  });

  it('refuses a missing directory option with ConfigError', () => {
    expect(() => new FileSessionStore({ directory: '' })).toThrow(
      expect.objectContaining({ name: 'ConfigError', code: 'config_invalid_option' }),
    );
  });
});
