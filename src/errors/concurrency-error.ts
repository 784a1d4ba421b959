import type { ConcurrencyErrorCode } from './error-codes.js';
import { hasMarker, LoopkeeperError } from './loopkeeper-error.js';

const marker = Symbol.for('loopkeeper.error.concurrency');

/**
 * An append was made against a stale `expectedSeq`: another writer got there first. Nothing was written.
 * Code `run_id_reused`: a Restate `send` named a recorded run with other content.
 *
 * @example
 * ```ts
 * import { ConcurrencyError, MemorySessionStore } from 'loopkeeper';
 *
 * const store = new MemorySessionStore();
 * try {
 *   // Stale on purpose: the session is empty, so its last seq is 0.
 *   await store.append('session-1', [{ type: 'run-started', runId: 'run-1' }], { expectedSeq: 5 });
 * } catch (error) {
 *   if (ConcurrencyError.isInstance(error)) console.log('another writer got there first');
 * }
 * ```
 */
export class ConcurrencyError extends LoopkeeperError {
  readonly [marker] = true;
  declare readonly code: ConcurrencyErrorCode;

  constructor(message: string, options?: { cause?: unknown; code?: ConcurrencyErrorCode }) {
    super(message, { code: options?.code ?? 'concurrency', cause: options?.cause });
    this.name = 'ConcurrencyError';
  }

  static override isInstance(value: unknown): value is ConcurrencyError {
    return hasMarker(value, marker);
  }
}
