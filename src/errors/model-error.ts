import { hasMarker, LoopkeeperError } from './loopkeeper-error.js';

const marker = Symbol.for('loopkeeper.error.model');

export type ModelErrorKind =
  | 'context_overflow'
  | 'payload_too_large'
  | 'rate_limited'
  | 'auth'
  | 'bad_request'
  | 'server'
  | 'network'
  | 'timeout'
  | 'aborted'
  | 'invalid_response'
  /** Neither text nor tool calls (`finish_reason` `length`, `content_filter`): nothing to log. */
  | 'empty_answer'
  | 'unknown';

/** How a model call failed, beside the message: `kind` is required, the rest optional. */
export interface ModelErrorOptions {
  readonly kind: ModelErrorKind;
  readonly cause?: unknown;
  /** The HTTP status, when the server answered. */
  readonly status?: number;
  /** Overrides the default: rate limits, server errors, network faults and timeouts retry. */
  readonly retryable?: boolean;
  readonly retryAfterMs?: number;
}

/**
 * A model call failed; `kind` says how, `retryable` whether trying again can help.
 *
 * @example
 * ```ts
 * import { ModelError } from 'loopkeeper';
 *
 * function shouldRetry(error: unknown): boolean {
 *   return ModelError.isInstance(error) && error.retryable && error.kind !== 'auth';
 * }
 * ```
 */
export class ModelError extends LoopkeeperError {
  readonly [marker] = true;
  readonly kind: ModelErrorKind;
  readonly retryable: boolean;
  readonly status: number | undefined;
  /** How long the server asked to wait before a retry, when that was longer than allowed. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: ModelErrorOptions) {
    const { kind } = options;
    super(message, { code: `model_${kind}`, cause: options.cause });
    this.name = 'ModelError';
    this.kind = kind;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
    this.retryable =
      options.retryable ??
      (kind === 'rate_limited' || kind === 'server' || kind === 'network' || kind === 'timeout');
  }

  static override isInstance(value: unknown): value is ModelError {
    return hasMarker(value, marker);
  }
}
