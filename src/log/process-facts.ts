import { readFileSync } from 'node:fs';
import { errorCode } from './io-error.js';

/** What a lock check may ask about processes; tests replace parts of it. */
export interface ProcessProbe {
  /** `process.kill(pid, 0)`: throws ESRCH for no such process, EPERM for another user's. */
  readonly kill: (pid: number, signal: 0) => unknown;
  readonly startTime: (pid: number) => string | undefined;
}

export const systemProbe: ProcessProbe = {
  kill: (pid, signal) => process.kill(pid, signal),
  startTime: (pid) => processStartTime(pid),
};

/**
 * Whether a process with this pid exists. Only ESRCH means it does not: EPERM means it exists but
 * belongs to another user, and any other failure is taken as alive, so a lock is never taken
 * from a writer that might still run.
 */
export function isProcessRunning(pid: number, probe: ProcessProbe = systemProbe): boolean {
  try {
    probe.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) !== 'ESRCH';
  }
}

/**
 * Field 22 of `/proc/<pid>/stat` (start time in clock ticks since boot), or undefined where
 * there is no `/proc` or no such process. The command name (field 2) may hold spaces and
 * parentheses, so fields are counted from its closing parenthesis.
 */
export function processStartTime(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const afterName = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // afterName[0] is field 3 (state), so field 22 is at index 19.
  const start = afterName[19];
  return start !== undefined && /^\d+$/.test(start) ? start : undefined;
}

export function readBootId(): string | undefined {
  try {
    const id = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return id.length > 0 ? id : undefined;
  } catch {
    return undefined;
  }
}
