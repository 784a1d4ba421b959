import { ModelError } from '../errors/model-error.js';
import { describeThrownText } from '../vocabulary/index.js';
import { isOpenAIError } from './openai-errors.js';
import { CONTEXT_OVERFLOW_PATTERN, isSocketError, messageWithCause } from './transport-errors.js';

/**
 * Maps anything a model call threw to a typed `ModelError`, so the loop can tell an overflow
 * (compact and retry) from an outage (retry later) from a bug (give up).
 *
 * - 400 `context_length_exceeded`, or a 400 whose message reads like one → `context_overflow`
 * - 413 → `payload_too_large`; 429 → `rate_limited` (not retryable for `insufficient_quota`)
 * - 401 / 403 → `auth`; 408 → `timeout`; 5xx → `server`; other 4xx → `bad_request`
 * - connection refused or reset, a stream cut mid-way → `network`; the SDK's timeout → `timeout`
 * - an aborted signal or the SDK's `APIUserAbortError` → `aborted`
 * - a body that is not valid JSON (`SyntaxError`) → `invalid_response`, not retryable: a server
 *   that sends broken JSON usually does so again, and the SDK does not retry it either.
 *
 * A `ModelError` passes through unchanged.
 *
 * @example
 * ```ts
 * import { classifyModelError } from 'loopkeeper/model';
 *
 * // A custom adapter classifies what its client threw the same way the OpenAI adapter does.
 * async function call(send: () => Promise<string>, signal: AbortSignal): Promise<string> {
 *   try {
 *     return await send();
 *   } catch (error) {
 *     throw classifyModelError(error, { signal });
 *   }
 * }
 * ```
 */
export function classifyModelError(
  error: unknown,
  { signal }: { signal?: AbortSignal } = {},
): ModelError {
  try {
    return classify(error, signal);
  } catch {
    // A hostile thrown value (a Proxy that throws on `instanceof`): describe it, never rethrow.
    return new ModelError(`The model call failed: ${describeThrownText(error)}`, {
      kind: 'unknown',
      cause: error,
    });
  }
}

function classify(error: unknown, signal: AbortSignal | undefined): ModelError {
  if (ModelError.isInstance(error)) return error;
  if (
    signal?.aborted === true ||
    isOpenAIError(error, 'APIUserAbortError') ||
    isAbortError(error)
  ) {
    return new ModelError('The model request was aborted.', { kind: 'aborted', cause: error });
  }
  if (isOpenAIError(error, 'APIConnectionTimeoutError')) {
    return new ModelError(`The model request timed out: ${error.message}`, {
      kind: 'timeout',
      cause: error,
    });
  }
  if (isOpenAIError(error, 'APIConnectionError')) {
    return new ModelError(`Could not reach the model server: ${messageWithCause(error)}`, {
      kind: 'network',
      cause: error,
    });
  }
  const statusError = asStatusError(error);
  if (statusError !== undefined) return classifyStatus(statusError);
  if (error instanceof SyntaxError) {
    return new ModelError(
      `The model server sent a response that is not valid JSON: ${error.message}`,
      { kind: 'invalid_response', cause: error },
    );
  }
  if (isSocketError(error)) {
    return new ModelError(`The connection to the model server broke: ${messageWithCause(error)}`, {
      kind: 'network',
      cause: error,
    });
  }
  return new ModelError(`The model call failed: ${messageWithCause(error)}`, {
    kind: 'unknown',
    cause: error,
  });
}

/** The parts of an SDK `APIError` the classification reads. */
interface StatusError {
  readonly status: number | undefined;
  readonly code: string | null | undefined;
  readonly message: string;
  readonly cause: unknown;
}

function classifyStatus(error: StatusError): ModelError {
  const status = error.status;
  const options = status === undefined ? { cause: error.cause } : { cause: error.cause, status };
  if (
    (status === undefined || status === 400 || status === 422) &&
    (error.code === 'context_length_exceeded' || CONTEXT_OVERFLOW_PATTERN.test(error.message))
  ) {
    return new ModelError(`The request exceeds the model's context window: ${error.message}`, {
      kind: 'context_overflow',
      ...options,
    });
  }
  if (status === 413) {
    return new ModelError(`The request is too large for the server: ${error.message}`, {
      kind: 'payload_too_large',
      ...options,
    });
  }
  if (status === 429) {
    // Out of quota is a 429 too, but waiting does not help.
    const retryable = error.code !== 'insufficient_quota';
    return new ModelError(`The model server is rate limiting: ${error.message}`, {
      kind: 'rate_limited',
      ...options,
      retryable,
    });
  }
  if (status === 401 || status === 403) {
    return new ModelError(`The model server refused the credentials: ${error.message}`, {
      kind: 'auth',
      ...options,
    });
  }
  if (status === 408) {
    return new ModelError(`The model server timed out: ${error.message}`, {
      kind: 'timeout',
      ...options,
    });
  }
  // No status: an error event inside a stream, which OpenAI sends for server-side failures.
  if (status === undefined || status >= 500) {
    return new ModelError(`The model server failed: ${error.message}`, {
      kind: 'server',
      ...options,
    });
  }
  return new ModelError(`The model server rejected the request: ${error.message}`, {
    kind: 'bad_request',
    ...options,
  });
}

/**
 * An SDK `APIError`, or (when the host's client comes from another copy of the openai package,
 * where `instanceof` fails) any error with a numeric HTTP `status`.
 */
function asStatusError(error: unknown): StatusError | undefined {
  if (!(error instanceof Error)) return undefined;
  const fields = error as Error & { status?: unknown; code?: unknown };
  if (!isOpenAIError(error, 'APIError') && typeof fields.status !== 'number') return undefined;
  return {
    status: typeof fields.status === 'number' ? fields.status : undefined,
    code: typeof fields.code === 'string' ? fields.code : undefined,
    message: error.message,
    cause: error,
  };
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}
