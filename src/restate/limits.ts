import { ConfigError } from '../errors/config-error.js';

/**
 * Size limits of one session served by the Restate object, in bytes of JSON (UTF-8). Restate
 * refuses any message over 32 MiB and pauses every handler of an object whose state or journal
 * outgrows the server's per-invocation memory, so both are checked before a value is journaled
 * or written to state.
 */
export interface LoopObjectLimits {
  /**
   * The largest single value: a user message, a model answer, a tool output, one log append,
   * one run result. A tool output over it becomes an `isError` result saying its size; a user
   * message over it is refused (`StoreError` `value_too_large`). Default 4 MiB.
   */
  readonly maxEntryBytes?: number;
  /**
   * The largest session log. A `send` that would grow it further is refused before its run
   * starts (`StoreError` `session_full`); an append inside a run that would cross it fails the
   * run with the same code, except the small writes that close a run. Default 8 MiB: a `send`
   * of a session without a compactor reads its whole log, and its invocation must stay within
   * the server's per-invocation memory.
   */
  readonly maxSessionBytes?: number;
}

export const MiB = 1024 * 1024;

export const DEFAULT_LIMITS: Required<LoopObjectLimits> = {
  maxEntryBytes: 4 * MiB,
  maxSessionBytes: 8 * MiB,
};

/** The limits with defaults filled in, checked once when the object is created. */
export function resolveLimits(limits: LoopObjectLimits = {}): Required<LoopObjectLimits> {
  const resolved = { ...DEFAULT_LIMITS, ...limits };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new ConfigError(`limits.${name} must be a positive integer, got ${String(value)}`, {
        code: 'config_invalid_option',
      });
    }
  }
  if (resolved.maxEntryBytes > resolved.maxSessionBytes) {
    throw new ConfigError('limits.maxEntryBytes must not exceed limits.maxSessionBytes', {
      code: 'config_invalid_option',
    });
  }
  return resolved;
}

/** Bytes of `value` as JSON in UTF-8, the way Restate's journal and state store it. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value ?? null), 'utf8');
}

/** `1.5 MB`-style text for error messages. */
export function describeBytes(bytes: number): string {
  return bytes >= MiB ? `${(bytes / MiB).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}
