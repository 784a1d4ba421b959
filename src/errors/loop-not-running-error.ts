import type { LoopNotRunningErrorCode } from './error-codes.js';
import { LoopkeeperError } from './loopkeeper-error.js';

const marker = Symbol.for('loopkeeper.error.loop-not-running');

/**
 * A turn was asked of a loop that was never started, was stopped, or was closed.
 *
 * @example
 * ```ts
 * import { createAgentLoop, LoopNotRunningError, runTurn } from 'loopkeeper';
 * import { ScriptedModel } from 'loopkeeper/testing';
 *
 * const loop = createAgentLoop({ model: new ScriptedModel({ turns: [] }) });
 * try {
 *   await runTurn(loop, 'Hello'); // never started
 * } catch (error) {
 *   if (LoopNotRunningError.isInstance(error)) loop.start();
 * }
 * ```
 */
export class LoopNotRunningError extends LoopkeeperError {
  readonly [marker] = true;
  declare readonly code: LoopNotRunningErrorCode;

  constructor(message: string, options?: { cause?: unknown; code?: LoopNotRunningErrorCode }) {
    super(message, { code: options?.code ?? 'loop_not_running', cause: options?.cause });
    this.name = 'LoopNotRunningError';
  }

  static override isInstance(value: unknown): value is LoopNotRunningError {
    return typeof value === 'object' && value !== null && marker in value;
  }
}
