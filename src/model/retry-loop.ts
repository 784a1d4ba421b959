import { ModelError } from '../errors/model-error.js';

/** How one client's errors are read: the only part of retrying that differs between SDKs. */
export interface RetryPolicy {
  /** Maps what an attempt threw to a typed error. */
  readonly classify: (error: unknown, options: { signal: AbortSignal }) => ModelError;
  /** Whether trying again can help. */
  readonly shouldRetry: (error: unknown) => boolean;
  /** The wait the server asked for (`retry-after-ms`, `retry-after`), in milliseconds. */
  readonly requestedWaitMs: (error: unknown) => number | undefined;
}

export interface RetryLoopOptions {
  /** Retries after the first attempt. */
  readonly maxRetries: number;
  /** The longest wait before a retry; a server asking for more fails at once instead. */
  readonly maxRetryWaitMs: number;
  readonly signal: AbortSignal;
}

/**
 * Runs `attempt` and retries what `policy` says can succeed later, waiting as the server asked or
 * with exponential backoff. The wait is capped at `maxRetryWaitMs` (a longer request becomes a
 * `rate_limited` error with `retryAfterMs`, without waiting) and ends as soon as `signal` aborts.
 * Every failure is a classified `ModelError`.
 */
export async function retryLoop<T>(
  attempt: (retry: number) => Promise<T>,
  policy: RetryPolicy,
  { maxRetries, maxRetryWaitMs, signal }: RetryLoopOptions,
): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt(retry);
    } catch (error) {
      const failure = policy.classify(error, { signal });
      if (retry >= maxRetries || !policy.shouldRetry(error) || signal.aborted) throw failure;
      const waitMs = policy.requestedWaitMs(error) ?? backoffMs(retry);
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

/** A `retry-after-ms` or `retry-after` (seconds or an HTTP date) header value, in milliseconds. */
export function retryAfterMs({
  retryAfterMs: milliseconds,
  retryAfter,
}: {
  retryAfterMs: string | null | undefined;
  retryAfter: string | null | undefined;
}): number | undefined {
  const exact = Number.parseFloat(milliseconds ?? '');
  if (Number.isFinite(exact) && exact >= 0) return exact;
  if (retryAfter === null || retryAfter === undefined) return undefined;
  const seconds = Number.parseFloat(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The openai SDK's backoff: 0.5 s doubling to at most 8 s, minus up to 25% jitter. */
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
