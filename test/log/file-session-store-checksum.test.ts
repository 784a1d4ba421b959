import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import fc from 'fast-check';
import { FileSessionStore, type SessionEvent, StoreError } from 'loopkeeper';
import { SESSION_SCHEMA_VERSION } from 'loopkeeper/log';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tableCrc32 } from '../../src/log/line-checksum.js';
import { user } from '../support/items.js';
import { collect, itemsAppended } from '../support/session-events.js';

const FLIPS = 300;

/** Opens the session for writing, then reads it: the outcome a host sees on resume. */
async function openAndRead(directory: string, sessionId: string): Promise<SessionEvent[]> {
  const store = new FileSessionStore({ directory });
  try {
    await store.openSession(sessionId);
    return await collect(store.read(sessionId));
  } finally {
    await store.close();
  }
}

async function outcomeOf(directory: string, sessionId: string) {
  try {
    return { events: await openAndRead(directory, sessionId) };
  } catch (error) {
    return { error };
  }
}

describe('FileSessionStore line checksums', () => {
  let directory: string;
  const logPath = (sessionId: string) => join(directory, `${sessionId}.jsonl`);

  /** A log of six events of several shapes and sizes, multi-byte text included. */
  async function writeLog(sessionId: string): Promise<SessionEvent[]> {
    const store = new FileSessionStore({ directory });
    try {
      await store.append(sessionId, [{ type: 'run-started', runId: 'r1' }]);
      await store.append(sessionId, [
        itemsAppended([user('a', 'plain text'), user('b', 'ünïcödé 🙂 text')]),
        itemsAppended([user('c', 'x'.repeat(300))]),
      ]);
      await store.append(sessionId, [
        {
          type: 'usage-reported',
          model: 'm',
          promptTokens: 12,
          completionTokens: 3,
        },
        { type: 'run-finished', runId: 'r1', outcome: 'completed', steps: 1 },
      ]);
      await store.append(sessionId, [itemsAppended([user('d', 'last')])]);
      return await collect(store.read(sessionId));
    } finally {
      await store.close();
    }
  }

  async function expectRefused(sessionId: string, message: RegExp): Promise<void> {
    const before = await readFile(logPath(sessionId));
    const { error } = await outcomeOf(directory, sessionId);
    expect(StoreError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'corrupt_log' });
    expect((error as Error).message).toContain(logPath(sessionId));
    expect((error as Error).message).toMatch(message);
    // Refused, not repaired: the bytes stay as they were for a human to look at.
    expect(await readFile(logPath(sessionId))).toEqual(before);
  }

  async function editLog(sessionId: string, edit: (text: string) => string): Promise<void> {
    await writeFile(logPath(sessionId), edit(await readFile(logPath(sessionId), 'utf8')));
  }

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'loopkeeper-checksum-'));
  });

  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('refuses a middle line whose content changed yet stays valid JSON, naming the line', async () => {
    await writeLog('s1');
    await editLog('s1', (text) => text.replace('plain text', 'plain test'));
    await expectRefused('s1', /line 2: its checksum does not match/);
  });

  it('refuses a changed last line instead of loading it or cutting it as torn', async () => {
    await writeLog('s1');
    await editLog('s1', (text) => text.replace('"last"', '"lost"'));
    await expectRefused('s1', /line 6: its checksum does not match/);
  });

  it('refuses a last line that is complete (newline-terminated) but not JSON', async () => {
    await writeLog('s1');
    await editLog('s1', (text) => `${text.slice(0, -30)}\n`);
    await expectRefused('s1', /line 6: not valid JSON, yet complete/);
  });

  it('refuses an intact last line whose newline was damaged, rather than cutting it', async () => {
    await writeLog('s1');
    await editLog('s1', (text) => `${text.slice(0, -1)}#`);
    await expectRefused('s1', /line 6: the line is intact but the newline after it is damaged/);
  });

  it('refuses a version 2 line whose checksum field was removed', async () => {
    await writeLog('s1');
    await editLog('s1', (text) => text.replace(/,"crc":"[0-9a-f]{8}"}\n$/, '}\n'));
    await expectRefused('s1', /line 6: its checksum is missing or damaged/);
  });

  it('still cuts an unterminated last line (a torn write) and keeps every complete event', async () => {
    const events = await writeLog('s1');
    const complete = (await stat(logPath('s1'))).size;
    const store = new FileSessionStore({ directory });
    await store.append('s1', [itemsAppended([user('e', 'torn')])]);
    await store.close();
    const withSeventh = await readFile(logPath('s1'));
    // Every prefix of the seventh line short of its newline is a torn write.
    for (const cut of [complete + 1, complete + 40, withSeventh.length - 1]) {
      await writeFile(logPath('s1'), withSeventh.subarray(0, cut));
      expect(await openAndRead(directory, 's1')).toEqual(events);
      expect((await stat(logPath('s1'))).size).toBe(complete);
    }
  });

  it('reads version 1 lines (no checksum) and appends checksummed lines after them', async () => {
    const at = '2026-11-29T12:00:00.000Z';
    await writeFile(
      logPath('old'),
      `{"v":1,"seq":1,"at":"${at}","type":"run-started","runId":"r1"}\n{"v":1,"seq":2,"at":"${at}","type":"items-appended","items":[{"kind":"user","id":"u1","content":"hi"}]}\n`,
    );
    const store = new FileSessionStore({ directory });
    try {
      expect(await store.openSession('old')).toEqual({ lastSeq: 2 });
      await store.append('old', [itemsAppended([user('u2')])], { expectedSeq: 2 });
    } finally {
      await store.close();
    }
    const events = await openAndRead(directory, 'old');
    expect(events.map((event) => [event.v, event.seq])).toEqual([
      [1, 1],
      [1, 2],
      [SESSION_SCHEMA_VERSION, 3],
    ]);
    expect((await readFile(logPath('old'), 'utf8')).split('\n')[2]).toMatch(
      /"crc":"[0-9a-f]{8}"}$/,
    );
  });

  it(`property: flipping any one byte of a valid log gives a typed StoreError or exactly the original events (${FLIPS} flips)`, async () => {
    const original = await writeLog('base');
    const bytes = await readFile(logPath('base'));
    const tally = { refused: 0, unchanged: 0 };
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: bytes.length - 1 }),
        fc.integer({ min: 1, max: 255 }),
        async (position, mask) => {
          round += 1;
          const sessionId = `flip${round}`;
          const damaged = Buffer.from(bytes);
          damaged[position] = (damaged[position] ?? 0) ^ mask;
          await writeFile(logPath(sessionId), damaged);
          const outcome = await outcomeOf(directory, sessionId);
          if ('events' in outcome) {
            expect(outcome.events).toEqual(original);
            tally.unchanged += 1;
          } else {
            expect(StoreError.isInstance(outcome.error)).toBe(true);
            expect((outcome.error as StoreError).code).toMatch(
              /^(corrupt_log|unsupported_schema_version)$/,
            );
            tally.refused += 1;
          }
        },
      ),
      { numRuns: FLIPS },
    );
    // A checksum catches every single-byte change: none loads, changed or shortened.
    expect(tally).toEqual({ refused: FLIPS, unchanged: 0 });
  });

  it('computes the same CRC-32 with its table as zlib does (used on Node before 20.15)', () => {
    const crc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;
    expect(crc32).toBeTypeOf('function');
    for (const text of ['', 'a', '{"v":2,"seq":1}', 'ünïcödé 🙂'.repeat(50)]) {
      const data = Buffer.from(text, 'utf8');
      expect(tableCrc32(data)).toBe(crc32?.(data));
    }
  });
});
