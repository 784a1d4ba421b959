import { ModelError } from '../errors/model-error.js';
import type { RetryPolicy } from '../model/retry-loop.js';
import { retryAfterMs } from '../model/retry-loop.js';
import { asApiCallError } from './ai-sdk-errors.js';
import { classifyAiSdkError } from './classify-ai-sdk-error.js';

/**
 * Retry what the provider marked retryable (the SDK's `APICallError.isRetryable`: connection
 * errors, 408, 409, 429, 5xx; and Anthropic's 529), unless the server said `x-should-retry:
 * false`; wait as `retry-after-ms` / `retry-after` ask. An attempt throws classified errors, so
 * the provider's error is read from their `cause`; one classified as not retryable (an abort,
 * a stream that already showed text) is never retried.
 */
export const aiSdkRetryPolicy: RetryPolicy = {
  classify: classifyAiSdkError,
  shouldRetry(error) {
    const classified = classifyAiSdkError(error);
    if (classified.kind === 'aborted' || !classified.retryable) return false;
    const apiCall = asApiCallError(providerError(error));
    if (apiCall === undefined) return true;
    const header = headerOf(apiCall.responseHeaders, 'x-should-retry');
    if (header !== undefined) return header === 'true';
    return apiCall.isRetryable || apiCall.statusCode === 529;
  },
  requestedWaitMs(error) {
    const headers = asApiCallError(providerError(error))?.responseHeaders;
    if (headers === undefined) return undefined;
    return retryAfterMs({
      retryAfterMs: headerOf(headers, 'retry-after-ms'),
      retryAfter: headerOf(headers, 'retry-after'),
    });
  },
};

function providerError(error: unknown): unknown {
  return ModelError.isInstance(error) && error.cause !== undefined ? error.cause : error;
}

function headerOf(
  headers: Readonly<Record<string, string>> | undefined,
  name: string,
): string | undefined {
  if (headers === undefined) return undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return value;
  }
  return undefined;
}
