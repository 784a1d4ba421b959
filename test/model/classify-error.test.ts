import { ModelError } from 'loopkeeper';
import type { ModelErrorKind } from 'loopkeeper/errors';
import { classifyModelError } from 'loopkeeper/model';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { describe, expect, it } from 'vitest';

function statusError(status: number, body: { message: string; code?: string }): APIError {
  return APIError.generate(status, { error: body }, undefined, new Headers());
}

/** An error shaped like the SDK's, from a copy of the package where `instanceof` fails. */
class ForeignStatusError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const cases: readonly [string, unknown, ModelErrorKind, boolean][] = [
  [
    '400 context_length_exceeded',
    statusError(400, { message: 'too long', code: 'context_length_exceeded' }),
    'context_overflow',
    false,
  ],
  [
    '400 "context length exceeded" wording',
    statusError(400, { message: 'Input validation error: context length exceeded' }),
    'context_overflow',
    false,
  ],
  [
    '400 "too many tokens" wording',
    statusError(400, { message: 'Prompt has too many tokens for this model' }),
    'context_overflow',
    false,
  ],
  [
    'other 400',
    statusError(400, { message: "Invalid value for 'temperature'" }),
    'bad_request',
    false,
  ],
  [
    '404 unknown model',
    statusError(404, { message: 'The model does not exist' }),
    'bad_request',
    false,
  ],
  ['413', statusError(413, { message: 'Request too large' }), 'payload_too_large', false],
  [
    '429 rate limit',
    statusError(429, { message: 'Slow down', code: 'rate_limit_exceeded' }),
    'rate_limited',
    true,
  ],
  [
    '429 out of quota',
    statusError(429, { message: 'You exceeded your current quota', code: 'insufficient_quota' }),
    'rate_limited',
    false,
  ],
  ['401', statusError(401, { message: 'Incorrect API key' }), 'auth', false],
  ['403', statusError(403, { message: 'Not allowed' }), 'auth', false],
  ['408', statusError(408, { message: 'Request timeout' }), 'timeout', true],
  ['502', statusError(502, { message: 'Bad gateway' }), 'server', true],
  [
    'error event inside a stream',
    new APIError(undefined, { message: 'The server had an error' }, undefined, new Headers()),
    'server',
    true,
  ],
  ['connection error', new APIConnectionError({ message: 'Connection error.' }), 'network', true],
  ['connection timeout', new APIConnectionTimeoutError(), 'timeout', true],
  ['user abort', new APIUserAbortError(), 'aborted', false],
  [
    'DOM AbortError',
    new DOMException('This operation was aborted', 'AbortError'),
    'aborted',
    false,
  ],
  [
    'undici socket cut',
    new TypeError('terminated', {
      cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
    }),
    'network',
    true,
  ],
  ['JSON syntax error', new SyntaxError('Unexpected end of JSON input'), 'invalid_response', false],
  [
    'overflow from another copy of the SDK',
    new ForeignStatusError(400, 'context_length_exceeded', '400 too long'),
    'context_overflow',
    false,
  ],
  ['anything else', new RangeError('something odd'), 'unknown', false],
  ['a thrown string', 'just a string', 'unknown', false],
];

describe('classifyModelError', () => {
  it.each(cases)('classifies %s', (_name, error, kind, retryable) => {
    const classified = classifyModelError(error);
    expect(classified).toBeInstanceOf(ModelError);
    expect(classified).toMatchObject({ kind, retryable });
    expect(classified.cause).toBe(error);
  });

  it('keeps the HTTP status', () => {
    expect(classifyModelError(statusError(413, { message: 'big' })).status).toBe(413);
  });

  it('returns a ModelError unchanged', () => {
    const original = new ModelError('already classified', { kind: 'server' });
    expect(classifyModelError(original)).toBe(original);
  });

  it('calls any failure after the signal aborted an abort', () => {
    const classified = classifyModelError(new APIConnectionError({ message: 'x' }), {
      signal: AbortSignal.abort(),
    });
    expect(classified.kind).toBe('aborted');
  });
});
