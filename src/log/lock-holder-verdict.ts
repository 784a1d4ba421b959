import type { LockOwner } from './lock-owner.js';
import { isProcessRunning, type ProcessProbe } from './process-facts.js';

export interface HolderVerdict {
  /** True when the holder is certainly gone, so its lock may be taken over. */
  readonly stale: boolean;
  /** Why, for the error message of a refused lock. */
  readonly why: string;
}

/**
 * Decides whether the process named by a lock file still holds it. Anything uncertain counts as
 * alive: a lock wrongly refused needs a human, a lock wrongly taken lets two writers corrupt the
 * log.
 */
export function judgeLockHolder({
  holder,
  self,
  probe,
}: {
  readonly holder: LockOwner;
  readonly self: LockOwner;
  readonly probe: ProcessProbe;
}): HolderVerdict {
  const { pid } = holder;
  if (holder.boot !== undefined && self.boot !== undefined && holder.boot !== self.boot) {
    return { stale: true, why: `process ${pid} ran before the machine restarted` };
  }
  if (pid === self.pid) return judgeOwnPid({ holder, self });
  if (!isProcessRunning(pid, probe)) return { stale: true, why: `process ${pid} no longer runs` };
  const start = holder.start === undefined ? undefined : probe.startTime(pid);
  if (start !== undefined && start !== holder.start) {
    return { stale: true, why: `pid ${pid} now belongs to a process started later` };
  }
  return { stale: false, why: `process ${pid} holds it` };
}

/**
 * A lock naming this very pid was written by this process (refused), or by an earlier process
 * that had the same pid, as after a restart of a container whose node is PID 1 (stale). Only a
 * different start time proves the latter: a different token alone may be another worker thread.
 */
function judgeOwnPid({
  holder,
  self,
}: {
  readonly holder: LockOwner;
  readonly self: LockOwner;
}): HolderVerdict {
  const { pid } = holder;
  if (holder.start !== undefined && self.start !== undefined && holder.start !== self.start) {
    return { stale: true, why: `an earlier process with pid ${pid} (this process's pid) wrote it` };
  }
  if (holder.token === undefined) {
    return {
      stale: false,
      why: `process ${pid} (this process's pid) holds it in the old pid-only format; if no process writes this session, delete the lock file`,
    };
  }
  return { stale: false, why: `process ${pid} (this process) holds it` };
}
