import { ModelError } from '../errors/model-error.js';
import {
  CONTEXT_OVERFLOW_PATTERN,
  isSocketError,
  messageWithCause,
} from '../model/transport-errors.js';
import { describeThrownText } from '../vocabulary/index.js';
import {
  type ApiCallErrorFields,
  asApiCallError,
  isApiKeyError,
  isInvalidResponseError,
  isRequestRefusedError,
} from './ai-sdk-errors.js';

/**
 * Maps what an AI SDK provider threw (or put in an `error` stream part) to a typed `ModelError`,
 * so the loop can compact on an overflow, prune on a 413 and retry an outage:
 *
 * - `APICallError` 400/413/422 whose message or body reads like an overflow → `context_overflow`
 * - 413 → `payload_too_large`; 429 → `rate_limited`; 401/403 → `auth`; 408 → `timeout`;
 *   5xx and Anthropic's 529 → `server`; other 4xx → `bad_request`
 * - an `APICallError` with no status (the SDK's `Cannot connect to API`) → `network`
 * - an aborted signal or an `AbortError` → `aborted`
 * - the provider's own schema refusing the body → `invalid_response`
 * - the provider refusing the prompt before sending (`UnsupportedFunctionalityError`, a missing
 *   API key) → `bad_request` / `auth`, not retryable
 * - an error object in the stream (`{type: 'overloaded_error', message}`) by its type
 */
export function classifyAiSdkError(
  error: unknown,
  { signal }: { signal?: AbortSignal } = {},
): ModelError {
  try {
    return classify(error, signal);
  } catch {
    return new ModelError(`The model call failed: ${describeThrownText(error)}`, {
      kind: 'unknown',
      cause: error,
    });
  }
}

function classify(error: unknown, signal: AbortSignal | undefined): ModelError {
  if (ModelError.isInstance(error)) return error;
  if (signal?.aborted === true || isAbortError(error)) {
    return new ModelError('The model request was aborted.', { kind: 'aborted', cause: error });
  }
  const apiCall = asApiCallError(error);
  if (apiCall !== undefined) return classifyApiCall(apiCall, error);
  if (isInvalidResponseError(error)) {
    return new ModelError(
      `The model server sent an answer the provider cannot read: ${messageWithCause(error)}`,
      {
        kind: 'invalid_response',
        cause: error,
      },
    );
  }
  if (isApiKeyError(error)) {
    return new ModelError(`The provider has no API key: ${messageWithCause(error)}`, {
      kind: 'auth',
      cause: error,
    });
  }
  if (isRequestRefusedError(error)) {
    return new ModelError(`The provider cannot send this request: ${messageWithCause(error)}`, {
      kind: 'bad_request',
      cause: error,
    });
  }
  if (isSocketError(error)) {
    return new ModelError(`The connection to the model server broke: ${messageWithCause(error)}`, {
      kind: 'network',
      cause: error,
    });
  }
  const streamError = asStreamError(error);
  if (streamError !== undefined) return classifyStreamError(streamError, error);
  return new ModelError(`The model call failed: ${messageWithCause(error)}`, {
    kind: 'unknown',
    cause: error,
  });
}

function classifyApiCall(fields: ApiCallErrorFields, cause: unknown): ModelError {
  const status = fields.statusCode;
  const detail = `${fields.message} ${fields.responseBody ?? ''}`;
  if (status === undefined) {
    return new ModelError(`Could not reach the model server: ${fields.message}`, {
      kind: 'network',
      cause,
    });
  }
  const options = { cause, status };
  if (status >= 200 && status < 300) {
    return new ModelError(
      `The model server sent an answer the provider cannot read: ${fields.message}`,
      {
        kind: 'invalid_response',
        ...options,
      },
    );
  }
  if (
    (status === 400 || status === 413 || status === 422) &&
    CONTEXT_OVERFLOW_PATTERN.test(detail)
  ) {
    return new ModelError(`The request exceeds the model's context window: ${fields.message}`, {
      kind: 'context_overflow',
      ...options,
    });
  }
  if (status === 413) {
    return new ModelError(`The request is too large for the server: ${fields.message}`, {
      kind: 'payload_too_large',
      ...options,
    });
  }
  if (status === 429) {
    return new ModelError(`The model server is rate limiting: ${fields.message}`, {
      kind: 'rate_limited',
      ...options,
      retryable: !/insufficient_quota/.test(detail),
    });
  }
  if (status === 401 || status === 403) {
    return new ModelError(`The model server refused the credentials: ${fields.message}`, {
      kind: 'auth',
      ...options,
    });
  }
  if (status === 408) {
    return new ModelError(`The model server timed out: ${fields.message}`, {
      kind: 'timeout',
      ...options,
    });
  }
  if (status >= 500) {
    return new ModelError(`The model server failed: ${fields.message}`, {
      kind: 'server',
      ...options,
    });
  }
  return new ModelError(`The model server rejected the request: ${fields.message}`, {
    kind: 'bad_request',
    ...options,
  });
}

/** An error part of a stream: Anthropic sends `{type: 'overloaded_error', message}` mid-stream. */
function asStreamError(error: unknown): { type: string; message: string } | undefined {
  if (typeof error !== 'object' || error === null || error instanceof Error) return undefined;
  const { type, message } = error as { type?: unknown; message?: unknown };
  if (typeof message !== 'string') return undefined;
  return { type: typeof type === 'string' ? type : '', message };
}

function classifyStreamError(
  { type, message }: { type: string; message: string },
  cause: unknown,
): ModelError {
  if (CONTEXT_OVERFLOW_PATTERN.test(message)) {
    return new ModelError(`The request exceeds the model's context window: ${message}`, {
      kind: 'context_overflow',
      cause,
    });
  }
  if (type === 'rate_limit_error') {
    return new ModelError(`The model server is rate limiting: ${message}`, {
      kind: 'rate_limited',
      cause,
    });
  }
  if (type === 'invalid_request_error') {
    return new ModelError(`The model server rejected the request: ${message}`, {
      kind: 'bad_request',
      cause,
    });
  }
  return new ModelError(
    `The model server failed mid-stream: ${type ? `${type}: ` : ''}${message}`,
    {
      kind: 'server',
      cause,
    },
  );
}

/** `fetch` rejects with an `AbortError` (or `TimeoutError`) when its signal aborts. */
function isAbortError(error: unknown): boolean {
  return (
    error instanceof Error && (error.name === 'AbortError' || error.name === 'ResponseAborted')
  );
}
