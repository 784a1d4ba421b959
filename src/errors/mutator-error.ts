import type { MutatorErrorCode } from './error-codes.js';
import { hasMarker, LoopkeeperError } from './loopkeeper-error.js';

const marker = Symbol.for('loopkeeper.error.mutator');

/**
 * A mutator (or compactor) failed or returned a transcript that breaks the protocol; it was neither sent nor logged.
 *
 * @example
 * ```ts
 * import { MutatorError } from 'loopkeeper';
 * import { createAgentLoop } from 'loopkeeper';
 * import { ScriptedModel } from 'loopkeeper/testing';
 *
 * const loop = createAgentLoop({ model: new ScriptedModel({ turns: [] }) });
 * loop.on('RunFinished', ({ error }) => {
 *   if (MutatorError.isInstance(error))
 *     console.error('a mutator broke the transcript', error.message);
 * });
 * ```
 */
export class MutatorError extends LoopkeeperError {
  readonly [marker] = true;
  declare readonly code: MutatorErrorCode;

  constructor(message: string, options?: { cause?: unknown; code?: MutatorErrorCode }) {
    super(options?.code ?? 'mutator', message, options);
    this.name = 'MutatorError';
  }

  static override isInstance(value: unknown): value is MutatorError {
    return hasMarker(value, marker);
  }
}
