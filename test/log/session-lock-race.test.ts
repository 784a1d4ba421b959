import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSessionStore } from 'loopkeeper';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentLockOwner, formatLockOwner } from '../../src/log/lock-owner.js';
import { bundleChild } from '../support/bundle-child.js';
import { type LineChild, startLineChild } from '../support/line-child.js';
import { collect } from '../support/session-events.js';

const PROCESSES = 8;
const ROUNDS = 24;

describe('FileSessionStore lock raced by real processes', () => {
  let directory: string;
  let module: string;
  let children: LineChild[] = [];

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'loopkeeper-lock-race-'));
    module = await bundleChild({ script: './child-lock-racer.ts', directory });
    children = Array.from({ length: PROCESSES }, () =>
      startLineChild({ module, args: [directory, 'raced'] }),
    );
    for (const child of children) expect(await child.next()).toBe('ready');
  });

  afterAll(async () => {
    await Promise.all(children.map((child) => child.end()));
    await rm(directory, { recursive: true, force: true });
  });

  it(`${PROCESSES} processes × ${ROUNDS} rounds on a stale lock: one holder at a time, contiguous seqs`, async () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    // A stale lock at every round start, in each form a dead writer leaves.
    const staleLocks = [
      formatLockOwner({ pid: dead, token: 'dead-writer' }),
      `${dead}\n`,
      formatLockOwner({ pid: process.pid, token: 'earlier-process', start: '1' }),
    ];
    const tally: Record<string, number> = {};
    for (let round = 1; round <= ROUNDS; round += 1) {
      await writeFile(join(directory, 'raced.lock'), staleLocks[round % staleLocks.length] ?? '');
      for (const child of children) child.send(`go ${round}`);
      const results = await Promise.all(children.map((child) => child.next()));
      const outcomes = results.map((line) => line.replace(`${round} `, ''));
      for (const outcome of outcomes) tally[outcome] = (tally[outcome] ?? 0) + 1;
      // Someone always gets a stale lock; nobody ever shares it.
      expect(outcomes).toContain('won');
      expect(outcomes.filter((outcome) => !['won', 'locked'].includes(outcome))).toEqual([]);
    }
    expect(tally['won']).toBeGreaterThanOrEqual(ROUNDS);

    const store = new FileSessionStore({ directory });
    try {
      const events = await collect(store.read('raced'));
      expect(events.map((event) => event.seq)).toEqual(
        Array.from({ length: 3 * (tally['won'] ?? 0) }, (_, index) => index + 1),
      );
      expect(await store.openSession('raced')).toEqual({ lastSeq: events.length });
    } finally {
      await store.close();
    }
  });

  // process.kill(pid, 0) fails with EPERM for a live process of another user: that holder is alive.
  it('refuses a lock held by a live process of another user (EPERM), checked from a real child', async () => {
    const shared = join(directory, 'shared');
    await mkdir(shared);
    // The child runs as nobody when the tests run as root, so it may not signal this process.
    const asRoot = process.getuid?.() === 0;
    if (asRoot) {
      await chmod(directory, 0o755);
      await chmod(shared, 0o777);
    }
    const held = formatLockOwner(currentLockOwner());
    await writeFile(join(shared, 'other-user.lock'), held);
    const child = startLineChild({
      module,
      args: [shared, 'other-user'],
      ...(asRoot ? { uid: 65534 } : {}),
    });
    try {
      expect(await child.next()).toBe('ready');
      child.send('go 1');
      expect(await child.next()).toBe('1 locked');
      expect(await readFile(join(shared, 'other-user.lock'), 'utf8')).toBe(held);
    } finally {
      await child.end();
    }
  });
});
