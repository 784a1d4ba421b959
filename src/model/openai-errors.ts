/** The openai SDK's error classes the adapters tell apart. */
export type OpenAIErrorName =
  | 'APIError'
  | 'APIConnectionError'
  | 'APIConnectionTimeoutError'
  | 'APIUserAbortError';

/** The fields of an SDK `APIError` the adapters read. */
export interface OpenAIErrorFields extends Error {
  readonly status?: number | undefined;
  readonly headers?: { get(name: string): string | null } | undefined;
}

/**
 * Whether `error` is an instance of the openai SDK's class `name` (or a subclass), told by the
 * class names on its prototype chain. That works for every copy of the package alike, and
 * needs no import of it: the SDK is loaded only when an adapter builds a client.
 */
export function isOpenAIError(error: unknown, name: OpenAIErrorName): error is OpenAIErrorFields {
  if (typeof error !== 'object' || error === null) return false;
  for (
    let prototype: unknown = Object.getPrototypeOf(error);
    prototype !== null && prototype !== Object.prototype;
    prototype = Object.getPrototypeOf(prototype)
  ) {
    if ((prototype as { constructor?: { name?: string } }).constructor?.name === name) return true;
  }
  return false;
}
