import type { StoreErrorCode } from './error-codes.js';
import { hasMarker, LoopkeeperError } from './loopkeeper-error.js';

const marker = Symbol.for('loopkeeper.error.store');

/** Reading or writing the session store failed, or the stored data is corrupt. */
export class StoreError extends LoopkeeperError {
  readonly [marker] = true;
  declare readonly code: StoreErrorCode;

  constructor(message: string, options?: { cause?: unknown; code?: StoreErrorCode }) {
    super(options?.code ?? 'store', message, options);
    this.name = 'StoreError';
  }

  static override isInstance(value: unknown): value is StoreError {
    return hasMarker(value, marker);
  }
}
