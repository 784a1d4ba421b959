import type { DurableStepErrorCode, LoopkeeperErrorCode } from './error-codes.js';
import { hasMarker, LoopkeeperError } from './loopkeeper-error.js';

const marker = Symbol.for('loopkeeper.error.durable-step');

/**
 * A journaled step (a tool call, or a log append, inside Restate's `ctx.run`) recorded a
 * failure, or its recorded result cannot be used. The message is the recorded one, so a
 * replay fails exactly like the first attempt did.
 *
 * @example
 * ```ts
 * import { DurableStepError, LoopkeeperError } from 'loopkeeper';
 *
 * function describe(error: unknown): string {
 *   if (DurableStepError.isInstance(error)) return `journaled step failed: ${error.message}`;
 *   return LoopkeeperError.isInstance(error) ? error.code : String(error);
 * }
 * ```
 */
export class DurableStepError extends LoopkeeperError {
  readonly [marker] = true;
  /** `durable_step`, or the code of the recorded failure it replays. */
  declare readonly code: DurableStepErrorCode | LoopkeeperErrorCode;

  constructor(
    message: string,
    options?: { cause?: unknown; code?: DurableStepErrorCode | LoopkeeperErrorCode },
  ) {
    super(message, { code: options?.code ?? 'durable_step', cause: options?.cause });
    this.name = 'DurableStepError';
  }

  static override isInstance(value: unknown): value is DurableStepError {
    return hasMarker(value, marker);
  }
}
