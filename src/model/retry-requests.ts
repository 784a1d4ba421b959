import { classifyModelError } from './classify-error.js';
import { isOpenAIError } from './openai-errors.js';
import { retryAfterMs, retryLoop } from './retry-loop.js';

/** The longest wait before a retry unless a caller says otherwise (`maxRetryWaitMs`). */
export const DEFAULT_MAX_RETRY_WAIT_MS = 60_000;

export interface RetryOptions {
  /** Retries after the first attempt. */
  readonly maxRetries: number;
  /** The longest wait before a retry; a server asking for more fails at once instead. */
  readonly maxRetryWaitMs: number;
  readonly signal: AbortSignal;
}

/**
 * Runs `attempt` and retries what the SDK would retry (connection errors, timeouts, 408, 409,
 * 429, 5xx, or what `x-should-retry` says), waiting as `retry-after-ms` / `retry-after` ask or
 * with exponential backoff. Unlike the SDK's own retries, the wait is capped at
 * `maxRetryWaitMs` (a longer `retry-after` becomes a `rate_limited` error with `retryAfterMs`,
 * without waiting) and ends as soon as `signal` aborts. Every failure is a classified `ModelError`.
 */
export function retryRequests<T>(
  attempt: (retry: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  return retryLoop(
    attempt,
    { classify: classifyModelError, shouldRetry, requestedWaitMs },
    options,
  );
}

function shouldRetry(error: unknown): boolean {
  if (isOpenAIError(error, 'APIConnectionError')) return true;
  if (!isOpenAIError(error, 'APIError') || error.status === undefined) return false;
  const header = error.headers?.get('x-should-retry');
  if (header === 'true') return true;
  if (header === 'false') return false;
  const status = error.status;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** What the server asked for, in milliseconds, or undefined. */
function requestedWaitMs(error: unknown): number | undefined {
  if (!isOpenAIError(error, 'APIError')) return undefined;
  return retryAfterMs({
    retryAfterMs: error.headers?.get('retry-after-ms'),
    retryAfter: error.headers?.get('retry-after'),
  });
}
