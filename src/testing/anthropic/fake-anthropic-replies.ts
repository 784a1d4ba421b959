/**
 * What the fake Anthropic server answers. An answer is plain data; faults are built with
 * `fakeAnthropicFaults` so their wire details (status, error type, headers) match the Messages API.
 */

export interface FakeAnthropicThinking {
  readonly thinking: string;
  /** The block's signature, sent as Anthropic sends it (last, as a `signature_delta`, when streaming). */
  readonly signature: string;
}

export interface FakeAnthropicToolCall {
  /** Generated (`toolu_<n>`) when absent. */
  readonly id?: string;
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
}

/** A successful message; its blocks go out in this order: thinking, redacted, text, tool uses. */
export interface FakeAnthropicAnswer {
  readonly thinking?: readonly FakeAnthropicThinking[];
  /** `redacted_thinking` blocks: their opaque `data`. */
  readonly redactedThinking?: readonly string[];
  readonly text?: string;
  readonly toolCalls?: readonly FakeAnthropicToolCall[];
  /** Input tokens; estimated from the request body (about 4 characters a token) when absent. */
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly cacheReadTokens?: number;
  /** Defaults to `tool_use` when there are tool calls, else `end_turn`. */
  readonly stopReason?: string;
  /** Defaults to the model the request asked for. */
  readonly model?: string;
  /** Characters per streamed delta (default 8). */
  readonly chunkSize?: number;
  /** Pause between streamed events (default 0). */
  readonly chunkDelayMs?: number;
  /** Wait this long before answering; ends early if the client disconnects. */
  readonly delayMs?: number;
}

export interface FakeAnthropicHttpError {
  readonly fault: 'http_error';
  readonly status: number;
  /** The Messages API's error type: `invalid_request_error`, `rate_limit_error`, ... */
  readonly errorType: string;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Never answers; the request ends only when the client gives up or the server closes. */
export interface FakeAnthropicHang {
  readonly fault: 'hang';
}

/** Destroys the socket without a response. */
export interface FakeAnthropicReset {
  readonly fault: 'reset';
}

/**
 * A streamed answer that goes wrong after `afterEvents` events: an `error` event (as Anthropic
 * sends `overloaded_error` mid-stream) when `error` is set, else the connection is cut.
 */
export interface FakeAnthropicBrokenStream {
  readonly fault: 'broken_stream';
  readonly answer: FakeAnthropicAnswer;
  readonly afterEvents: number;
  readonly error?: { readonly type: string; readonly message: string };
}

export type FakeAnthropicFault =
  | FakeAnthropicHttpError
  | FakeAnthropicHang
  | FakeAnthropicReset
  | FakeAnthropicBrokenStream;

export type FakeAnthropicReply = FakeAnthropicAnswer | FakeAnthropicFault;

/**
 * Builders for the faults the Anthropic Messages API produces, with its error bodies and headers.
 *
 * @example
 * ```ts
 * import { fakeAnthropicFaults, startFakeAnthropicServer } from 'loopkeeper/testing';
 *
 * // The first request is too long for the window; the retry after a compaction is answered.
 * const server = await startFakeAnthropicServer({
 *   replies: [fakeAnthropicFaults.promptTooLong({ maxTokens: 200_000 }), { text: 'Done.' }],
 * });
 * await server.close();
 * ```
 */
export const fakeAnthropicFaults = {
  /** HTTP 400 `prompt is too long`, as Anthropic words a context overflow. */
  promptTooLong({
    maxTokens = 200_000,
    requestedTokens = maxTokens + 1_000,
  }: {
    maxTokens?: number;
    requestedTokens?: number;
  } = {}): FakeAnthropicHttpError {
    return {
      fault: 'http_error',
      status: 400,
      errorType: 'invalid_request_error',
      message: `prompt is too long: ${requestedTokens} tokens > ${maxTokens} maximum`,
    };
  },

  /** HTTP 413 `request_too_large`. */
  requestTooLarge(): FakeAnthropicHttpError {
    return {
      fault: 'http_error',
      status: 413,
      errorType: 'request_too_large',
      message: 'Request exceeds the maximum allowed number of bytes.',
    };
  },

  /** HTTP 429 `rate_limit_error` with a `retry-after` header (seconds). */
  rateLimited({
    retryAfterSeconds = 1,
  }: {
    retryAfterSeconds?: number;
  } = {}): FakeAnthropicHttpError {
    return {
      fault: 'http_error',
      status: 429,
      errorType: 'rate_limit_error',
      message: 'Number of request tokens has exceeded your per-minute rate limit.',
      headers: { 'retry-after': String(retryAfterSeconds) },
    };
  },

  /** HTTP 529 `overloaded_error`, with a `retry-after` header when asked for. */
  overloaded({ retryAfterSeconds }: { retryAfterSeconds?: number } = {}): FakeAnthropicHttpError {
    return {
      fault: 'http_error',
      status: 529,
      errorType: 'overloaded_error',
      message: 'Overloaded',
      ...(retryAfterSeconds === undefined
        ? {}
        : { headers: { 'retry-after': String(retryAfterSeconds) } }),
    };
  },

  /** HTTP 401 `authentication_error`. */
  unauthorized(): FakeAnthropicHttpError {
    return {
      fault: 'http_error',
      status: 401,
      errorType: 'authentication_error',
      message: 'invalid x-api-key',
    };
  },

  /** Any other HTTP error with an Anthropic-shaped body. */
  httpError({
    status,
    errorType = 'invalid_request_error',
    message,
    headers = {},
  }: {
    status: number;
    errorType?: string;
    message: string;
    headers?: Readonly<Record<string, string>>;
  }): FakeAnthropicHttpError {
    return { fault: 'http_error', status, errorType, message, headers };
  },

  hang(): FakeAnthropicHang {
    return { fault: 'hang' };
  },

  reset(): FakeAnthropicReset {
    return { fault: 'reset' };
  },

  /** A stream that sends `afterEvents` events and then an `error` event, or is cut. */
  brokenStream({
    answer = { text: 'This answer is cut off before the model finishes its sentence.' },
    afterEvents = 3,
    error,
  }: {
    answer?: FakeAnthropicAnswer;
    afterEvents?: number;
    error?: { type: string; message: string };
  } = {}): FakeAnthropicBrokenStream {
    return {
      fault: 'broken_stream',
      answer,
      afterEvents,
      ...(error === undefined ? {} : { error }),
    };
  },
} as const;
