import type { AbortedErrorCode } from './error-codes.js';
import { hasMarker, LoopkeeperError } from './loopkeeper-error.js';

const marker = Symbol.for('loopkeeper.error.aborted');

/**
 * The run was aborted by the host.
 *
 * @example
 * ```ts
 * import { AbortedError, createAgentLoop, runTurn } from 'loopkeeper';
 * import { ScriptedModel } from 'loopkeeper/testing';
 *
 * const loop = createAgentLoop({ model: new ScriptedModel({ turns: [{ text: 'Hi.' }] }) });
 * loop.start();
 * const turn = runTurn(loop, 'Hello');
 * loop.send({ type: 'abort' });
 * const { error } = await turn;
 * if (AbortedError.isInstance(error)) console.log('the host aborted the run');
 * ```
 */
export class AbortedError extends LoopkeeperError {
  readonly [marker] = true;
  declare readonly code: AbortedErrorCode;

  constructor(message: string, options?: { cause?: unknown; code?: AbortedErrorCode }) {
    super(options?.code ?? 'aborted', message, options);
    this.name = 'AbortedError';
  }

  static override isInstance(value: unknown): value is AbortedError {
    return hasMarker(value, marker);
  }
}
