import type { CompactionErrorCode } from './error-codes.js';
import { hasMarker, LoopkeeperError } from './loopkeeper-error.js';

const marker = Symbol.for('loopkeeper.error.compaction');

/**
 * A compaction step failed, for example the summarizer threw, timed out or returned a rejected summary.
 *
 * @example
 * ```ts
 * import { CompactionError, createAgentLoop } from 'loopkeeper';
 * import { ScriptedModel } from 'loopkeeper/testing';
 *
 * const loop = createAgentLoop({ model: new ScriptedModel({ turns: [] }) });
 * loop.on('CompactionFailed', ({ error }) => {
 *   if (error.code === 'summary_timeout')
 *     console.warn('summary timed out; emergency prune follows');
 * });
 * console.log(CompactionError.isInstance(new Error('plain')));
 * ```
 */
export class CompactionError extends LoopkeeperError {
  readonly [marker] = true;
  declare readonly code: CompactionErrorCode;

  constructor(message: string, options?: { cause?: unknown; code?: CompactionErrorCode }) {
    super(options?.code ?? 'compaction', message, options);
    this.name = 'CompactionError';
  }

  static override isInstance(value: unknown): value is CompactionError {
    return hasMarker(value, marker);
  }
}
