import type { MutatorErrorCode } from './error-codes.js';
import { hasMarker, LoopkeeperError } from './loopkeeper-error.js';

const marker = Symbol.for('loopkeeper.error.mutator');

/**
 * A mutator (or compactor) failed or returned a transcript that breaks the protocol; it was neither sent nor logged.
 *
 * @example
 * ```ts
 * import { createAgentLoop, MutatorError } from 'loopkeeper';
 * import { ScriptedModel } from 'loopkeeper/testing';
 *
 * const loop = createAgentLoop({ model: new ScriptedModel({ turns: [] }) });
 * // RunFinished carries the error serialized (name, code, message), so compare by name.
 * loop.on('RunFinished', ({ error }) => {
 *   if (error?.name === MutatorError.name) console.error(`a mutator failed: ${error.message}`);
 * });
 * ```
 */
export class MutatorError extends LoopkeeperError {
  readonly [marker] = true;
  declare readonly code: MutatorErrorCode;

  constructor(message: string, options?: { cause?: unknown; code?: MutatorErrorCode }) {
    super(message, { code: options?.code ?? 'mutator', cause: options?.cause });
    this.name = 'MutatorError';
  }

  static override isInstance(value: unknown): value is MutatorError {
    return hasMarker(value, marker);
  }
}
