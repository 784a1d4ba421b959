/**
 * What the fake OpenAI server answers. An answer is plain data (`{text: 'hi'}`); faults are built
 * with `fakeFaults` so their wire details (status, error body, headers) match what the real API
 * sends.
 */

export interface FakeUsage {
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  readonly cachedTokens?: number;
}

export interface FakeToolCall {
  /** Generated (`call_<n>`) when absent. */
  readonly id?: string;
  readonly name: string;
  /** Sent as given when a string (it may be invalid JSON on purpose); objects are JSON-encoded. */
  readonly arguments: string | Readonly<Record<string, unknown>>;
}

/** A successful completion: text, reasoning and/or (parallel) tool calls. */
export interface FakeAnswer {
  readonly text?: string;
  /** Sent as the compatible `reasoning_content` field that some servers add. */
  readonly reasoning?: string;
  readonly toolCalls?: readonly FakeToolCall[];
  /** Explicit usage numbers; missing ones are estimated from the request (about 4 characters a token). */
  readonly usage?: FakeUsage;
  /** Defaults to `tool_calls` when there are tool calls, else `stop`. */
  readonly finishReason?: string;
  /** Defaults to the model the request asked for. */
  readonly model?: string;
  /** Characters per streamed text, reasoning or argument delta (default 8). */
  readonly chunkSize?: number;
  /**
   * Stream parallel calls' argument pieces in turns (first call, second call, first call, ...)
   * instead of one call after the other, as some compatible servers do (default false).
   */
  readonly interleaveToolCalls?: boolean;
  /** Pause between streamed chunks, so a client can act mid-stream (default 0). */
  readonly chunkDelayMs?: number;
  /** Wait this long before answering; ends early if the client disconnects. */
  readonly delayMs?: number;
}

export interface FakeHttpErrorFault {
  readonly fault: 'http_error';
  readonly status: number;
  readonly message: string;
  readonly errorType?: string;
  readonly code?: string | null;
  readonly param?: string | null;
  readonly headers?: Readonly<Record<string, string>>;
  readonly delayMs?: number;
}

/** Never answers; the request ends only when the client gives up or the server closes. */
export interface FakeHangFault {
  readonly fault: 'hang';
}

/** Destroys the socket without a response, as a crashed proxy would. */
export interface FakeResetFault {
  readonly fault: 'reset';
  readonly delayMs?: number;
}

/** Status 200 with a JSON content type and a body that is not JSON (or, when streaming, an SSE chunk that is not). */
export interface FakeMalformedJsonFault {
  readonly fault: 'malformed_json';
  readonly body: string;
  readonly delayMs?: number;
}

/**
 * Starts a normal answer and stops part way: when streaming, after `afterChunks` SSE chunks and
 * before any `finish_reason` or `[DONE]`; otherwise after half of the JSON body.
 */
export interface FakeTruncatedStreamFault {
  readonly fault: 'truncated_stream';
  readonly answer: FakeAnswer;
  readonly afterChunks: number;
  /** `end` closes the response cleanly; `destroy` cuts the socket. */
  readonly how: 'end' | 'destroy';
  readonly delayMs?: number;
}

/** Exactly these bytes, for answers no well-behaved server gives (empty choices, odd shapes). */
export interface FakeRawResponseFault {
  readonly fault: 'raw_response';
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly delayMs?: number;
}

export type FakeFault =
  | FakeHttpErrorFault
  | FakeRawResponseFault
  | FakeHangFault
  | FakeResetFault
  | FakeMalformedJsonFault
  | FakeTruncatedStreamFault;

export type FakeReply = FakeAnswer | FakeFault;

/**
 * Whether a scripted reply of the fake server is a fault (an HTTP error, a hang, a broken stream,
 * …) rather than an answer.
 *
 * @example
 * ```ts
 * import { fakeFaults, type FakeReply, isFakeFault } from 'loopkeeper/testing';
 *
 * const replies: FakeReply[] = [{ text: 'Hi' }, fakeFaults.rateLimited({ retryAfterSeconds: 2 })];
 * console.log(replies.filter(isFakeFault).length); // 1
 * ```
 */
export function isFakeFault(reply: FakeReply): reply is FakeFault {
  return 'fault' in reply;
}

/**
 * Builders for the faults real providers produce, with the bodies and headers they send.
 *
 * @example
 * ```ts
 * import { fakeFaults, startFakeOpenAIServer } from 'loopkeeper/testing';
 *
 * // The first request is refused as too long for the window, the retry gets an answer.
 * const server = await startFakeOpenAIServer({
 *   replies: [fakeFaults.contextOverflow({ maxTokens: 8_000 }), { text: 'Done.' }],
 * });
 * await server.close();
 * ```
 */
export const fakeFaults = {
  /** HTTP 400 `context_length_exceeded`, worded as OpenAI words it. */
  contextOverflow({
    maxTokens = 128_000,
    requestedTokens = maxTokens + 1_000,
  }: {
    maxTokens?: number;
    requestedTokens?: number;
  } = {}): FakeHttpErrorFault {
    return {
      fault: 'http_error',
      status: 400,
      errorType: 'invalid_request_error',
      code: 'context_length_exceeded',
      param: 'messages',
      message: `This model's maximum context length is ${maxTokens} tokens. However, your messages resulted in ${requestedTokens} tokens. Please reduce the length of the messages.`,
    };
  },

  /** HTTP 413: the request body is larger than the server accepts. */
  payloadTooLarge({ limitBytes = 1_048_576 }: { limitBytes?: number } = {}): FakeHttpErrorFault {
    return {
      fault: 'http_error',
      status: 413,
      errorType: 'invalid_request_error',
      code: 'request_too_large',
      message: `Request too large: the request body exceeds the maximum size of ${limitBytes} bytes.`,
    };
  },

  /** HTTP 429 with a `retry-after` header (seconds, may be fractional). */
  rateLimited({ retryAfterSeconds = 1 }: { retryAfterSeconds?: number } = {}): FakeHttpErrorFault {
    return {
      fault: 'http_error',
      status: 429,
      errorType: 'requests',
      code: 'rate_limit_exceeded',
      message: `Rate limit reached for requests. Please try again in ${retryAfterSeconds}s.`,
      headers: { 'retry-after': String(retryAfterSeconds) },
    };
  },

  /** HTTP 5xx, as during an outage. */
  serverError({ status = 500 }: { status?: number } = {}): FakeHttpErrorFault {
    return {
      fault: 'http_error',
      status,
      errorType: 'server_error',
      code: null,
      message: 'The server had an error while processing your request. Sorry about that!',
    };
  },

  /** HTTP 401 `invalid_api_key`. */
  unauthorized(): FakeHttpErrorFault {
    return {
      fault: 'http_error',
      status: 401,
      errorType: 'invalid_request_error',
      code: 'invalid_api_key',
      message: 'Incorrect API key provided. You can find your API key in your account settings.',
    };
  },

  /** Any other HTTP error with an OpenAI-shaped body. */
  httpError({
    status,
    message,
    errorType = 'invalid_request_error',
    code = null,
    headers = {},
    delayMs = 0,
  }: {
    status: number;
    message: string;
    errorType?: string;
    code?: string | null;
    headers?: Readonly<Record<string, string>>;
    delayMs?: number;
  }): FakeHttpErrorFault {
    return { fault: 'http_error', status, message, errorType, code, headers, delayMs };
  },

  /** A response sent byte for byte; `body` objects are JSON-encoded. */
  rawResponse({
    status = 200,
    headers = { 'content-type': 'application/json' },
    body,
  }: {
    status?: number;
    headers?: Readonly<Record<string, string>>;
    body: string | Readonly<Record<string, unknown>>;
  }): FakeRawResponseFault {
    return {
      fault: 'raw_response',
      status,
      headers,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    };
  },

  hang(): FakeHangFault {
    return { fault: 'hang' };
  },

  reset({ delayMs = 0 }: { delayMs?: number } = {}): FakeResetFault {
    return { fault: 'reset', delayMs };
  },

  malformedJson({
    body = '{"id": "chatcmpl-broken", "choices": [{"index": 0, "message": {"role": "assist',
  }: {
    body?: string;
  } = {}): FakeMalformedJsonFault {
    return { fault: 'malformed_json', body };
  },

  truncatedStream({
    answer = { text: 'This answer is cut off before the model finishes its sentence.' },
    afterChunks = 2,
    how = 'end',
  }: {
    answer?: FakeAnswer;
    afterChunks?: number;
    how?: 'end' | 'destroy';
  } = {}): FakeTruncatedStreamFault {
    return { fault: 'truncated_stream', answer, afterChunks, how };
  },
} as const;
