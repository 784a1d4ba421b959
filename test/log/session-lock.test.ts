import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoreError } from 'loopkeeper';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { judgeLockHolder } from '../../src/log/lock-holder-verdict.js';
import {
  currentLockOwner,
  formatLockOwner,
  type LockOwner,
  parseLockOwner,
} from '../../src/log/lock-owner.js';
import {
  isProcessRunning,
  type ProcessProbe,
  processStartTime,
  systemProbe,
} from '../../src/log/process-facts.js';
import { acquireSessionLock, releaseSessionLock } from '../../src/log/session-lock.js';
import { rejection } from '../support/rejection.js';

let exitedPid = 0;
/** A pid that belonged to a process that has exited (spawned once per file: spawning costs). */
function deadPid(): number {
  if (exitedPid === 0) {
    const exited = spawnSync(process.execPath, ['-e', '0']);
    expect(exited.status).toBe(0);
    exitedPid = exited.pid;
  }
  return exitedPid;
}

function failingKill(code: string): ProcessProbe {
  return {
    ...systemProbe,
    kill: () => {
      throw Object.assign(new Error(`kill failed: ${code}`), { code });
    },
  };
}

const self = currentLockOwner();
/** Another locker that counts as alive: this process's pid and start time, its own token. */
const liveLocker = (token: string): LockOwner => ({ ...self, token });

describe('acquireSessionLock', () => {
  let directory: string;
  let path: string;
  const acquire = (options: Omit<Parameters<typeof acquireSessionLock>[0], 'path' | 'sessionId'>) =>
    acquireSessionLock({ path, sessionId: 's1', ...options });
  const holderOnDisk = async () => parseLockOwner(await readFile(path, 'utf8'));
  const otherFiles = async () => (await readdir(directory)).filter((name) => name !== 's1.lock');

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'loopkeeper-lock-'));
    path = join(directory, 's1.lock');
  });

  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('writes the owner as one JSON line: format 2, pid, token, start time and boot id', async () => {
    await acquire({});
    const written = JSON.parse(await readFile(path, 'utf8'));
    expect(written).toEqual({ lock: 2, ...self });
    expect(written.pid).toBe(process.pid);
    expect(written.token).toMatch(/^[0-9a-f]{24}$/);
    // These machines have /proc, so the start time and boot id are known.
    expect(written.start).toBe(processStartTime(process.pid));
    expect(written.boot).toMatch(/^[0-9a-f-]{36}$/);
    expect(await otherFiles()).toEqual([]);
  });

  it('takes over a stale lock while a third process creates a fresh one: only that one holds it', async () => {
    // The interleaving of issue 12: A judges the dead writer's lock stale; before A acts, B
    // takes the stale lock over; while A is inside its takeover, C tries to lock.
    await writeFile(path, formatLockOwner({ pid: deadPid(), token: 'dead', start: '1' }));
    const outcomes: Record<string, unknown> = {};
    const attempt = (name: string, promise: Promise<void>) =>
      promise.then(
        () => {
          outcomes[name] = 'held';
        },
        (error: unknown) => {
          outcomes[name] = (error as StoreError).code;
        },
      );
    await attempt(
      'A',
      acquire({
        owner: liveLocker('A'),
        hooks: {
          judgedStale: () => attempt('B', acquire({ owner: liveLocker('B') })),
          claimed: () => attempt('C', acquire({ owner: liveLocker('C') })),
        },
      }),
    );
    expect(outcomes).toEqual({ A: 'session_locked', B: 'held', C: 'session_locked' });
    expect((await holderOnDisk())?.token).toBe('B');
    expect(await otherFiles()).toEqual([]);
  });

  it('lets exactly one of two lockers that judged the same lock stale at once take it', async () => {
    await writeFile(path, formatLockOwner({ pid: deadPid(), token: 'dead' }));
    let arrived = 0;
    let release: () => void = () => undefined;
    const bothJudged = new Promise<void>((resolve) => {
      release = resolve;
    });
    const barrier = async () => {
      arrived += 1;
      if (arrived === 2) release();
      await bothJudged;
    };
    const results = await Promise.allSettled(
      ['A', 'B'].map((token) =>
        acquire({ owner: liveLocker(token), hooks: { judgedStale: barrier } }),
      ),
    );
    expect(arrived).toBe(2);
    const held = results.flatMap((result, index) => (result.status === 'fulfilled' ? [index] : []));
    expect(held).toHaveLength(1);
    const refused = results.find((result) => result.status === 'rejected');
    expect(StoreError.isInstance(refused?.reason)).toBe(true);
    expect((await holderOnDisk())?.token).toBe(['A', 'B'][held[0] ?? -1]);
    expect(await otherFiles()).toEqual([]);
  });

  it('recovers a takeover claim left by a process that crashed in the middle of a takeover', async () => {
    const stale = formatLockOwner({ pid: deadPid(), token: 'dead' });
    await writeFile(path, stale);
    // Find the claim's name by holding one open, then leave a dead process's claim there.
    let claimName = '';
    await acquire({
      owner: liveLocker('probe'),
      hooks: {
        claimed: async () => {
          claimName = (await otherFiles()).find((name) => name.includes('.takeover-')) ?? '';
          throw new Error('stop here');
        },
      },
    }).catch(() => undefined);
    expect(claimName).toMatch(/^s1\.lock\.takeover-[0-9a-f]{16}$/);
    expect(await readFile(path, 'utf8')).toBe(stale);
    await writeFile(join(directory, claimName), formatLockOwner({ pid: deadPid(), token: 'x' }));

    await acquire({});
    expect(await holderOnDisk()).toEqual(self);
    expect(await otherFiles()).toEqual([]);
  });

  it('refuses its own live lock, naming this process', async () => {
    await acquire({});
    const error = await rejection(acquire({}));
    expect(StoreError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'session_locked' });
    expect((error as Error).message).toContain(`process ${process.pid} (this process) holds it`);
    expect(await holderOnDisk()).toEqual(self);
  });

  // Issue 12, item 4: node as PID 1 in a container restarts with the same pid.
  it('takes over a lock naming this pid but another start time: an earlier process with the same pid', async () => {
    await writeFile(path, formatLockOwner({ ...self, token: 'before-restart', start: '7' }));
    await acquire({});
    expect(await holderOnDisk()).toEqual(self);
  });

  it('refuses a lock naming this pid and start time with another token (another thread of this process)', async () => {
    await writeFile(path, formatLockOwner(liveLocker('worker')));
    await expect(acquire({})).rejects.toMatchObject({ code: 'session_locked' });
    expect((await holderOnDisk())?.token).toBe('worker');
  });

  it('takes over a lock from an earlier boot, whatever its pid', async () => {
    await writeFile(path, formatLockOwner({ ...self, token: 'old', boot: 'another-boot' }));
    await acquire({});
    expect(await holderOnDisk()).toEqual(self);
  });

  it('refuses a lock of another live process whose start time matches', async () => {
    const pid = process.ppid;
    const start = processStartTime(pid);
    expect(start).toBeDefined();
    await writeFile(path, formatLockOwner({ pid, token: 'parent', ...(start ? { start } : {}) }));
    const error = await rejection(acquire({}));
    expect(error).toMatchObject({ code: 'session_locked' });
    expect((error as Error).message).toContain(`process ${pid} holds it`);
  });

  it('takes over a lock whose pid now belongs to a process started later (a reused pid)', async () => {
    await writeFile(path, formatLockOwner({ pid: process.ppid, token: 'long-gone', start: '1' }));
    await acquire({});
    expect(await holderOnDisk()).toEqual(self);
  });

  it.each([
    ['the new format', (pid: number) => formatLockOwner({ pid, token: 'dead' })],
    ['the old pid-only format', (pid: number) => `${pid}\n`],
  ])('takes over a lock in %s whose process no longer runs', async (_label, format) => {
    await writeFile(path, format(deadPid()));
    await acquire({});
    expect(await holderOnDisk()).toEqual(self);
    expect(await otherFiles()).toEqual([]);
  });

  it('refuses an old pid-only lock of a live process, and one naming this pid', async () => {
    await writeFile(path, `${process.ppid}\n`);
    await expect(acquire({})).rejects.toMatchObject({ code: 'session_locked' });
    await writeFile(path, `${process.pid}\n`);
    const error = await rejection(acquire({}));
    expect((error as Error).message).toMatch(/old pid-only format/);
    expect(await readFile(path, 'utf8')).toBe(`${process.pid}\n`);
  });

  it.each(['EPERM', 'EINVAL'])(
    'counts a holder as alive when probing it fails with %s (another user owns it)',
    async (code) => {
      const holder = { pid: deadPid(), token: 'someone-else' };
      await writeFile(path, formatLockOwner(holder));
      const error = await rejection(acquire({ probe: failingKill(code) }));
      expect(error).toMatchObject({ code: 'session_locked' });
      expect((error as Error).message).toContain(`process ${holder.pid} holds it`);
      expect((await holderOnDisk())?.token).toBe('someone-else');
    },
  );

  it('takes over a lock when probing its holder says ESRCH (no such process)', async () => {
    await writeFile(path, formatLockOwner({ pid: process.ppid, token: 'gone' }));
    await acquire({ probe: failingKill('ESRCH') });
    expect(await holderOnDisk()).toEqual(self);
  });

  it.each([
    ['empty', ''],
    ['garbage', 'not a lock'],
    ['a pid of 0', '0\n'],
  ])('refuses a lock file that names no process (%s) rather than guess', async (_label, text) => {
    await writeFile(path, text);
    const error = await rejection(acquire({}));
    expect(error).toMatchObject({ code: 'session_locked' });
    expect((error as Error).message).toMatch(/names no process/);
  });

  it('releases only once; releasing a lock already gone is fine', async () => {
    await acquire({});
    await releaseSessionLock({ path });
    await releaseSessionLock({ path });
    expect(await readdir(directory)).toEqual([]);
  });
});

describe('isProcessRunning', () => {
  it('says yes for this process and no for an exited one', () => {
    expect(isProcessRunning(process.pid)).toBe(true);
    expect(isProcessRunning(deadPid())).toBe(false);
  });

  it.each([
    ['EPERM', true],
    ['EINVAL', true],
    ['ESRCH', false],
  ])('reads a probe failing with %s as running: %s', (code, running) => {
    expect(isProcessRunning(12345, failingKill(code))).toBe(running);
  });
});

describe('judgeLockHolder with a lock naming this pid', () => {
  const earlier = { pid: process.pid, token: 'earlier' };

  it('calls it stale only when both start times are known and differ', () => {
    const judge = (holder: LockOwner, owner: LockOwner) =>
      judgeLockHolder({ holder, self: owner, probe: systemProbe }).stale;
    expect(judge({ ...earlier, start: '100' }, { ...self, start: '200' })).toBe(true);
    // Unknown on either side is uncertain, and uncertain counts as alive.
    expect(judge({ ...earlier, start: '100' }, { pid: process.pid, token: 'now' })).toBe(false);
    expect(judge(earlier, { ...self, start: '200' })).toBe(false);
    expect(judge({ ...earlier, start: '200' }, { ...self, start: '200' })).toBe(false);
  });
});
