import { createHash, randomUUID } from 'node:crypto';
import { type FileHandle, link, unlink, writeFile } from 'node:fs/promises';
import { LoopkeeperError, StoreError } from '../errors/index.js';
import { errorCode, ioError } from './io-error.js';
import { judgeLockHolder } from './lock-holder-verdict.js';
import { currentLockOwner, formatLockOwner, type LockOwner, parseLockOwner } from './lock-owner.js';
import { openWithoutFollowing } from './open-without-following.js';
import { type ProcessProbe, systemProbe } from './process-facts.js';

/** Points inside a takeover where a test can run other lockers, to force an interleaving. */
export interface LockTakeoverHooks {
  /** A lock was judged stale; nothing has been claimed yet. */
  readonly judgedStale?: () => Promise<void>;
  /** The takeover claim is held; the stale lock has not been re-read yet. */
  readonly claimed?: () => Promise<void>;
}

export interface AcquireSessionLockOptions {
  readonly path: string;
  readonly sessionId: string;
  /** Who takes the lock; this process unless a test says otherwise. */
  readonly owner?: LockOwner;
  readonly probe?: ProcessProbe;
  readonly hooks?: LockTakeoverHooks;
}

// A claim on a claim covers a process that crashed while taking a lock over; deeper nesting
// would mean crashes inside crashes and is left to a human.
const MAX_CLAIM_DEPTH = 2;
const ATTEMPTS = 4;

/**
 * Takes the single-writer lock of a session: the file at `path`, naming its owner (see
 * `LockOwner`). It is created complete and atomically (written under a temporary name, then
 * hard-linked to `path`, which fails if a lock exists), so a lock file is never seen half
 * written. A lock held by a live process, this one included, is refused with `StoreError`
 * (`session_locked`); a stale one is taken over through `removeStaleFile`.
 *
 * Limits: pids and boot ids are only meaningful on one machine and in one pid namespace, so the
 * directory must not be shared between hosts or containers (use a database-backed store there).
 */
export async function acquireSessionLock({
  path,
  sessionId,
  owner = currentLockOwner(),
  probe = systemProbe,
  hooks = {},
}: AcquireSessionLockOptions): Promise<void> {
  const text = formatLockOwner(owner);
  // A stale lock takes two rounds (remove it, then create ours); the others cover races lost.
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    if (await createExclusive({ path, text })) return;
    const seen = await readText(path);
    if (seen === undefined) continue;
    const holder = parseLockOwner(seen);
    if (holder === undefined) {
      throw locked({
        sessionId,
        path,
        why: 'its lock file names no process; if no process writes this session, delete the lock file',
      });
    }
    const verdict = judgeLockHolder({ holder, self: owner, probe });
    if (!verdict.stale) throw locked({ sessionId, path, why: verdict.why });
    await hooks.judgedStale?.();
    await removeStaleFile({ path, seen, text, owner, probe, hooks, depth: 0 });
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

/**
 * Deletes the file at `path` only if it still holds exactly `seen`, the content judged stale.
 * Reading and deleting are two steps, so they run under a claim: `<path>.takeover-<digest of
 * seen>`, created exclusively. Only the claim's holder may delete a file with that content, and
 * a stale lock's content never comes back (it names a dead process and a random token), so
 * whoever re-reads `seen` under the claim deletes the stale lock and nothing else. A fresh lock
 * created meanwhile has other content and stays. A claim left by a process that crashed during
 * a takeover is itself stale and removed the same way, one level deeper.
 */
async function removeStaleFile({
  path,
  seen,
  text,
  owner,
  probe,
  hooks,
  depth,
}: {
  readonly path: string;
  readonly seen: string;
  readonly text: string;
  readonly owner: LockOwner;
  readonly probe: ProcessProbe;
  readonly hooks: LockTakeoverHooks;
  readonly depth: number;
}): Promise<void> {
  const claim = `${path}.takeover-${createHash('sha256').update(seen).digest('hex').slice(0, 16)}`;
  if (!(await createExclusive({ path: claim, text }))) {
    // Another process is taking this lock over right now, or crashed while doing so.
    if (depth >= MAX_CLAIM_DEPTH) return;
    const claimText = await readText(claim);
    const claimHolder = claimText === undefined ? undefined : parseLockOwner(claimText);
    if (claimText === undefined || claimHolder === undefined) return;
    if (!judgeLockHolder({ holder: claimHolder, self: owner, probe }).stale) return;
    await removeStaleFile({
      path: claim,
      seen: claimText,
      text,
      owner,
      probe,
      hooks,
      depth: depth + 1,
    });
    return;
  }
  try {
    await hooks.claimed?.();
    if ((await readText(path)) === seen) await removeIfPresent(path);
  } finally {
    await removeIfPresent(claim);
  }
}

/**
 * Creates `path` holding `text` unless it exists: the text goes to a unique temporary file,
 * which is then hard-linked to `path` (atomic, fails with EEXIST). File systems without hard
 * links fall back to an exclusive create, where a crash between create and write can leave an
 * empty lock file (refused with a message saying to delete it).
 */
async function createExclusive({
  path,
  text,
}: {
  readonly path: string;
  readonly text: string;
}): Promise<boolean> {
  const temporary = `${path}.new-${randomUUID()}`;
  try {
    await writeFile(temporary, text, { flag: 'wx' });
  } catch (cause) {
    throw ioError({ action: 'create lock', path: temporary, cause });
  }
  try {
    await link(temporary, path);
    return true;
  } catch (cause) {
    const code = errorCode(cause);
    if (code === 'EEXIST') return false;
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS') {
      return createWithoutLink({ path, text });
    }
    throw ioError({ action: 'create lock', path, cause });
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

async function createWithoutLink({
  path,
  text,
}: {
  readonly path: string;
  readonly text: string;
}): Promise<boolean> {
  try {
    await writeFile(path, text, { flag: 'wx' });
    return true;
  } catch (cause) {
    if (errorCode(cause) === 'EEXIST') return false;
    throw ioError({ action: 'create lock', path, cause });
  }
}

/** The lock file's text, or undefined when it is gone; a symbolic link is refused, not read. */
async function readText(path: string): Promise<string | undefined> {
  let handle: FileHandle;
  try {
    handle = await openWithoutFollowing({ path, mode: 'read' });
  } catch (cause) {
    if (LoopkeeperError.isInstance(cause)) throw cause;
    if (errorCode(cause) === 'ENOENT') return undefined;
    throw ioError({ action: 'read lock', path, cause });
  }
  try {
    return await handle.readFile('utf8');
  } catch (cause) {
    throw ioError({ action: 'read lock', path, cause });
  } finally {
    await handle.close().catch(() => undefined);
  }
}

async function removeIfPresent(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (cause) {
    if (errorCode(cause) !== 'ENOENT') throw ioError({ action: 'remove stale lock', path, cause });
  }
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
