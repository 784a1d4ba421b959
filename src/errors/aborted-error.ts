import type { AbortedErrorCode } from './error-codes.js';
import { hasMarker, LoopkeeperError } from './loopkeeper-error.js';

const marker = Symbol.for('loopkeeper.error.aborted');

/**
 * The run was aborted by the host.
 *
 * @example
 * ```ts
 * import { AbortedError, createTokenCounter, dropReasoning, pipeline } from 'loopkeeper';
 *
 * const controller = new AbortController();
 * controller.abort(); // e.g. the host is shutting down
 * try {
 *   await pipeline(dropReasoning()).apply(
 *     {
 *       transcript: [{ kind: 'user', id: 'u1', content: 'Hello' }],
 *       reason: 'manual',
 *       budget: { maxTokens: 1_000, targetTokens: 0 },
 *     },
 *     { tokens: await createTokenCounter(), signal: controller.signal },
 *   );
 * } catch (error) {
 *   if (AbortedError.isInstance(error)) console.log('compaction aborted');
 * }
 * ```
 */
export class AbortedError extends LoopkeeperError {
  readonly [marker] = true;
  declare readonly code: AbortedErrorCode;

  constructor(message: string, options?: { cause?: unknown; code?: AbortedErrorCode }) {
    super(message, { code: options?.code ?? 'aborted', cause: options?.cause });
    this.name = 'AbortedError';
  }

  static override isInstance(value: unknown): value is AbortedError {
    return hasMarker(value, marker);
  }
}
