import type { ToolErrorCode } from './error-codes.js';
import { hasMarker, LoopkeeperError } from './loopkeeper-error.js';

const marker = Symbol.for('loopkeeper.error.tool');

/**
 * A tool definition is not usable.
 *
 * @example
 * ```ts
 * import { defineTool, ToolError } from 'loopkeeper';
 *
 * try {
 *   defineTool({ name: 'bad name!', description: '', parameters: {}, execute: async () => '' });
 * } catch (error) {
 *   if (ToolError.isInstance(error)) console.error(error.message); // lists every problem
 * }
 * ```
 */
export class ToolError extends LoopkeeperError {
  readonly [marker] = true;
  declare readonly code: ToolErrorCode;

  constructor(message: string, options?: { cause?: unknown; code?: ToolErrorCode }) {
    super(message, { code: options?.code ?? 'tool', cause: options?.cause });
    this.name = 'ToolError';
  }

  static override isInstance(value: unknown): value is ToolError {
    return hasMarker(value, marker);
  }
}
