/**
 * The AI SDK's error classes, recognised the way the SDK itself does (`AISDKError.isInstance`):
 * by a `Symbol.for` marker, so no runtime import of `@ai-sdk/provider` is needed and errors from
 * another copy of the package are still recognised.
 */

/** The fields of an `APICallError` the classification reads. */
export interface ApiCallErrorFields {
  readonly message: string;
  readonly statusCode: number | undefined;
  readonly responseHeaders: Readonly<Record<string, string>> | undefined;
  readonly responseBody: string | undefined;
  readonly isRetryable: boolean;
}

const marker = (name: string) => Symbol.for(`vercel.ai.error.${name}`);

function hasMarker(error: unknown, name: string): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as Record<symbol, unknown>)[marker(name)] === true
  );
}

export function asApiCallError(error: unknown): ApiCallErrorFields | undefined {
  if (!hasMarker(error, 'AI_APICallError')) return undefined;
  const fields = error as Partial<Record<keyof ApiCallErrorFields, unknown>>;
  const headers = fields.responseHeaders;
  return {
    message: typeof fields.message === 'string' ? fields.message : '',
    statusCode: typeof fields.statusCode === 'number' ? fields.statusCode : undefined,
    responseHeaders:
      typeof headers === 'object' && headers !== null
        ? (headers as Record<string, string>)
        : undefined,
    responseBody: typeof fields.responseBody === 'string' ? fields.responseBody : undefined,
    isRetryable: fields.isRetryable === true,
  };
}

/** The provider answered with something its own schema refuses, or with no body at all. */
export function isInvalidResponseError(error: unknown): boolean {
  return [
    'AI_JSONParseError',
    'AI_TypeValidationError',
    'AI_InvalidResponseDataError',
    'AI_EmptyResponseBodyError',
  ].some((name) => hasMarker(error, name));
}

/** The provider refused the request before sending it: the prompt or a setting it cannot take. */
export function isRequestRefusedError(error: unknown): boolean {
  return [
    'AI_UnsupportedFunctionalityError',
    'AI_InvalidPromptError',
    'AI_InvalidArgumentError',
    'AI_LoadAPIKeyError',
  ].some((name) => hasMarker(error, name));
}

export function isApiKeyError(error: unknown): boolean {
  return hasMarker(error, 'AI_LoadAPIKeyError');
}
