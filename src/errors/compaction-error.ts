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
 * // Telemetry carries errors serialized (name, code, message), so compare by name.
 * loop.on('CompactionFailed', ({ error }) => {
 *   if (error.name === CompactionError.name) console.warn(`summary failed: ${error.code}`);
 * });
 * ```
 */
export class CompactionError extends LoopkeeperError {
  readonly [marker] = true;
  declare readonly code: CompactionErrorCode;

  constructor(message: string, options?: { cause?: unknown; code?: CompactionErrorCode }) {
    super(message, { code: options?.code ?? 'compaction', cause: options?.cause });
    this.name = 'CompactionError';
  }

  static override isInstance(value: unknown): value is CompactionError {
    return hasMarker(value, marker);
  }
}
