import type { StoreErrorCode } from './error-codes.js';
import { hasMarker, LoopkeeperError } from './loopkeeper-error.js';

const marker = Symbol.for('loopkeeper.error.store');

/**
 * Reading or writing the session store failed, or the stored data is corrupt.
 *
 * @example
 * ```ts
 * import { FileSessionStore, StoreError } from 'loopkeeper';
 *
 * const store = new FileSessionStore({ directory: './sessions' });
 * try {
 *   for await (const event of store.read('support-42')) console.log(event.seq, event.type);
 * } catch (error) {
 *   if (StoreError.isInstance(error)) console.error(`corrupt or unreadable log: ${error.message}`);
 * }
 * ```
 */
export class StoreError extends LoopkeeperError {
  readonly [marker] = true;
  declare readonly code: StoreErrorCode;

  constructor(message: string, options?: { cause?: unknown; code?: StoreErrorCode }) {
    super(message, { code: options?.code ?? 'store', cause: options?.cause });
    this.name = 'StoreError';
  }

  static override isInstance(value: unknown): value is StoreError {
    return hasMarker(value, marker);
  }
}
