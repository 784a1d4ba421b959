import { randomBytes } from 'node:crypto';
import { processStartTime, readBootId } from './process-facts.js';

/**
 * Who holds a session lock, as written in the lock file. The pid alone is not enough: a process
 * restarted with the same pid (node as PID 1 in a container) or a reused pid would make a dead
 * writer's lock look alive forever, so the start time, the boot and a random token are kept too.
 */
export interface LockOwner {
  readonly pid: number;
  /** Random per process; absent in lock files written before lock format 2 (pid only). */
  readonly token?: string;
  /** Start time of the process in clock ticks since boot (Linux `/proc/<pid>/stat`), if known. */
  readonly start?: string;
  /** `/proc/sys/kernel/random/boot_id`, if known: a lock from an earlier boot is always stale. */
  readonly boot?: string;
}

/**
 * Lock file formats:
 * - 1: the holder's pid and a newline (`1234\n`); still read.
 * - 2: one JSON line `{"lock":2,"pid":1234,"token":"…","start":"…","boot":"…"}`; `start` and
 *   `boot` are left out where the platform has no `/proc`.
 */
export const LOCK_FORMAT_VERSION = 2;

// Shared through the global symbol registry, so two copies of loopkeeper loaded in one process
// agree on the token and never take each other's locks for those of an earlier process.
const TOKEN_KEY = Symbol.for('loopkeeper.lock.process-token');

let current: LockOwner | undefined;

/** This process as a lock owner; computed once. */
export function currentLockOwner(): LockOwner {
  if (current !== undefined) return current;
  const registry = globalThis as { [TOKEN_KEY]?: string };
  registry[TOKEN_KEY] ??= randomBytes(12).toString('hex');
  const start = processStartTime(process.pid);
  const boot = readBootId();
  current = {
    pid: process.pid,
    token: registry[TOKEN_KEY],
    ...(start === undefined ? {} : { start }),
    ...(boot === undefined ? {} : { boot }),
  };
  return current;
}

export function formatLockOwner(owner: LockOwner): string {
  return `${JSON.stringify({ lock: LOCK_FORMAT_VERSION, ...owner })}\n`;
}

/** The owner a lock file names, or undefined when it names none (empty, garbage). */
export function parseLockOwner(text: string): LockOwner | undefined {
  const pidOnly = /^\s*(\d+)\s*$/.exec(text)?.[1];
  if (pidOnly !== undefined)
    return validPid(Number(pidOnly)) ? { pid: Number(pidOnly) } : undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const fields = value as Record<string, unknown>;
  const pid = fields['pid'];
  if (typeof pid !== 'number' || !validPid(pid)) return undefined;
  const token = optionalString(fields, 'token');
  const start = optionalString(fields, 'start');
  const boot = optionalString(fields, 'boot');
  return {
    pid,
    ...(token === undefined ? {} : { token }),
    ...(start === undefined ? {} : { start }),
    ...(boot === undefined ? {} : { boot }),
  };
}

function optionalString(fields: Record<string, unknown>, key: string): string | undefined {
  const value = fields[key];
  return typeof value === 'string' ? value : undefined;
}

function validPid(pid: number): boolean {
  return Number.isSafeInteger(pid) && pid > 0;
}
