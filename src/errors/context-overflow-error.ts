import type { ContextOverflowErrorCode } from './error-codes.js';
import { hasMarker, LoopkeeperError } from './loopkeeper-error.js';

const marker = Symbol.for('loopkeeper.error.context_overflow');

/**
 * The transcript cannot be brought inside the context window: the compaction cap was reached or even the latest turn alone does not fit.
 *
 * @example
 * ```ts
 * import { ContextOverflowError, createAgentLoop, runTurn } from 'loopkeeper';
 * import { ScriptedModel } from 'loopkeeper/testing';
 *
 * const loop = createAgentLoop({ model: new ScriptedModel({ turns: [{ text: 'Done.' }] }) });
 * loop.start();
 * const finished = await runTurn(loop, 'Go on.');
 * // A run's result carries its error serialized (name, code, message), so compare by name.
 * if (finished.error?.name === ContextOverflowError.name)
 *   console.error('the latest turn does not fit');
 * ```
 */
export class ContextOverflowError extends LoopkeeperError {
  readonly [marker] = true;
  declare readonly code: ContextOverflowErrorCode;

  constructor(message: string, options?: { cause?: unknown; code?: ContextOverflowErrorCode }) {
    super(message, { code: options?.code ?? 'context_overflow', cause: options?.cause });
    this.name = 'ContextOverflowError';
  }

  static override isInstance(value: unknown): value is ContextOverflowError {
    return hasMarker(value, marker);
  }
}
