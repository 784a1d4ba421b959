import { randomUUID } from 'node:crypto';
import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { StoreError } from '../errors/index.js';
import { errorCode, ioError } from './io-error.js';

/**
 * Takes the single-writer lock of a session: the file at `path`, created exclusively ('wx') and
 * holding the writer's pid. A lock whose pid is no longer running (a writer that crashed) is
 * taken over; one held by a live process, this process included, is refused with `StoreError`
 * (`session_locked`).
 *
 * Limits: pids are only meaningful on one machine and in one pid namespace, so the directory
 * must not be shared between hosts or containers (use a database-backed store there); a reused pid keeps a stale lock looking alive (refused, never unsafe); an empty lock
 * file (a crash between create and write) is refused with a message saying to remove it.
 */
export async function acquireSessionLock({
  path,
  sessionId,
}: {
  readonly path: string;
  readonly sessionId: string;
}): Promise<void> {
  // A stale lock takes two rounds (clear it, then create ours); a third covers one race lost.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    if (await tryCreate(path)) return;
    const holder = await readHolder(path);
    if (holder === 'gone') continue;
    if (holder === undefined) {
      throw locked({
        sessionId,
        path,
        why: 'its lock file holds no pid; if no process writes this session, delete the lock file',
      });
    }
    if (isRunning(holder)) {
      throw locked({
        sessionId,
        path,
        why: `process ${holder}${holder === process.pid ? ' (this process)' : ''} holds it`,
      });
    }
    await clearStaleLock({ path, sessionId, holder });
  }
  throw locked({ sessionId, path, why: 'other processes keep taking the lock' });
}

/** Gives the lock up; a lock file already gone is fine. */
export async function releaseSessionLock({ path }: { readonly path: string }): Promise<void> {
  try {
    await unlink(path);
  } catch (cause) {
    if (errorCode(cause) !== 'ENOENT') throw ioError({ action: 'release lock', path, cause });
  }
}

async function tryCreate(path: string): Promise<boolean> {
  try {
    await writeFile(path, `${process.pid}\n`, { flag: 'wx' });
    return true;
  } catch (cause) {
    if (errorCode(cause) === 'EEXIST') return false;
    throw ioError({ action: 'create lock', path, cause });
  }
}

async function readHolder(path: string): Promise<number | undefined | 'gone'> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    if (errorCode(cause) === 'ENOENT') return 'gone';
    throw ioError({ action: 'read lock', path, cause });
  }
  const pid = /^\s*(\d+)\s*$/.exec(text)?.[1];
  return pid === undefined ? undefined : Number(pid);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return errorCode(error) !== 'ESRCH';
  }
}

/**
 * Moves a stale lock aside instead of deleting it by name: if another process cleared it and
 * took a fresh lock in between, a plain unlink would delete that live lock. After the move the
 * moved file must still name the dead pid; otherwise it was a live lock and goes back.
 */
async function clearStaleLock({
  path,
  sessionId,
  holder,
}: {
  readonly path: string;
  readonly sessionId: string;
  readonly holder: number;
}): Promise<void> {
  const aside = `${path}.stale-${process.pid}-${randomUUID()}`;
  try {
    await rename(path, aside);
  } catch (cause) {
    if (errorCode(cause) === 'ENOENT') return;
    throw ioError({ action: 'clear stale lock', path, cause });
  }
  const moved = await readHolder(aside);
  if (moved !== holder) {
    await rename(aside, path).catch(() => undefined);
    throw locked({ sessionId, path, why: 'another process took the lock over just now' });
  }
  await unlink(aside).catch(() => undefined);
}

function locked({
  sessionId,
  path,
  why,
}: {
  readonly sessionId: string;
  readonly path: string;
  readonly why: string;
}): StoreError {
  return new StoreError(`Session ${sessionId} is locked for writing (${path}): ${why}`, {
    code: 'session_locked',
  });
}
