import { APIConnectionError, APIError } from 'openai';
import { ModelError } from '../errors/model-error.js';
import { classifyModelError } from './classify-error.js';

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
export async function retryRequests<T>(
  attempt: (retry: number) => Promise<T>,
  { maxRetries, maxRetryWaitMs, signal }: RetryOptions,
): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt(retry);
    } catch (error) {
      const failure = classifyModelError(error, { signal });
      if (retry >= maxRetries || !shouldRetry(error) || signal.aborted) throw failure;
      const waitMs = requestedWaitMs(error) ?? backoffMs(retry);
      if (waitMs > maxRetryWaitMs) {
        throw new ModelError(
          `${failure.message} The server asked to wait ${Math.ceil(waitMs / 1000)} s before a retry, longer than maxRetryWaitMs (${maxRetryWaitMs} ms); not waiting.`,
          {
            kind: failure.kind === 'unknown' ? 'rate_limited' : failure.kind,
            cause: error,
            retryable: true,
            retryAfterMs: waitMs,
            ...(failure.status === undefined ? {} : { status: failure.status }),
          },
        );
      }
      if (!(await sleep(waitMs, signal))) {
        throw new ModelError('The model request was aborted while waiting to retry.', {
          kind: 'aborted',
          cause: signal.reason,
        });
      }
    }
  }
}

function shouldRetry(error: unknown): boolean {
  if (error instanceof APIConnectionError) return true;
  if (!(error instanceof APIError) || error.status === undefined) return false;
  const header = error.headers?.get('x-should-retry');
  if (header === 'true') return true;
  if (header === 'false') return false;
  const status = error.status;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** What the server asked for, in milliseconds, or undefined. */
function requestedWaitMs(error: unknown): number | undefined {
  if (!(error instanceof APIError)) return undefined;
  const milliseconds = Number.parseFloat(error.headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const header = error.headers?.get('retry-after');
  if (header === null || header === undefined) return undefined;
  const seconds = Number.parseFloat(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The SDK's backoff: 0.5 s doubling to at most 8 s, minus up to 25% jitter. */
function backoffMs(retry: number): number {
  return Math.min(500 * 2 ** retry, 8000) * (1 - Math.random() * 0.25);
}

/** Resolves true after `milliseconds`, false as soon as `signal` aborts. */
function sleep(milliseconds: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, milliseconds);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
