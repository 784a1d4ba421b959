import {
  APICallError,
  type LanguageModelV3CallOptions,
  type LanguageModelV3GenerateResult,
  type LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test';
import { ConfigError, type Item, ModelError } from 'loopkeeper';
import { aiSdkModel } from 'loopkeeper/ai-sdk';
import type { ModelDelta, ModelRequest } from 'loopkeeper/model';
import { describe, expect, it } from 'vitest';

const usage = (input: number, output: number, cacheRead?: number) => ({
  inputTokens: { total: input, noCache: undefined, cacheRead, cacheWrite: undefined },
  outputTokens: { total: output, text: undefined, reasoning: undefined },
});

function generated(
  content: LanguageModelV3GenerateResult['content'],
  unified: 'stop' | 'tool-calls' = 'stop',
): LanguageModelV3GenerateResult {
  return {
    content,
    finishReason: { unified, raw: unified === 'stop' ? 'end_turn' : 'tool_use' },
    usage: usage(120, 30, 100),
    warnings: [],
  };
}

function streamed(parts: LanguageModelV3StreamPart[]) {
  return { stream: convertArrayToReadableStream(parts) };
}

function request(transcript: readonly Item[], extra: Partial<ModelRequest> = {}): ModelRequest {
  return {
    transcript,
    tools: [
      {
        name: 'read_file',
        description: 'Reads a file.',
        parameters: { type: 'object', properties: { path: { type: 'string' } } },
      },
    ],
    signal: new AbortController().signal,
    ...extra,
  };
}

const signed = { anthropic: { signature: 'sig-Ab/9+==' } };

const history: Item[] = [
  { kind: 'context', id: 'c1', name: 'notes', text: 'Project notes.' },
  { kind: 'user', id: 'u1', content: 'Read a.txt and b.txt' },
  {
    kind: 'assistant',
    id: 'a1',
    text: 'Reading both.',
    reasoning: [
      { text: 'Two files to read.', providerData: signed },
      { text: '', providerData: { anthropic: { redactedData: 'opaque==' } } },
    ],
    toolCalls: [
      { id: 'call_1', name: 'read_file', arguments: '{"path":"a.txt"}' },
      { id: 'call_2', name: 'read_file', arguments: '{"path":' },
    ],
  },
  {
    kind: 'toolResult',
    id: 't1',
    callId: 'call_1',
    toolName: 'read_file',
    content: 'alpha',
    isError: false,
  },
  {
    kind: 'toolResult',
    id: 't2',
    callId: 'call_2',
    toolName: 'read_file',
    content: 'bad arguments',
    isError: true,
  },
  { kind: 'context', id: 'c2', text: 'A later note.' },
] as Item[];

describe('aiSdkModel: the prompt', () => {
  it('renders instructions, items, reasoning with its provider data, and merged tool results', async () => {
    const mock = new MockLanguageModelV3({ doGenerate: generated([{ type: 'text', text: 'ok' }]) });
    await aiSdkModel(mock).generate(request(history, { instructions: 'Be brief.' }));
    const call = mock.doGenerateCalls[0] as LanguageModelV3CallOptions;
    expect(call.prompt).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: 'Project notes.' },
      { role: 'user', content: [{ type: 'text', text: 'Read a.txt and b.txt' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Two files to read.', providerOptions: signed },
          {
            type: 'reasoning',
            text: '',
            providerOptions: { anthropic: { redactedData: 'opaque==' } },
          },
          { type: 'text', text: 'Reading both.' },
          {
            type: 'tool-call',
            toolCallId: 'call_1',
            toolName: 'read_file',
            input: { path: 'a.txt' },
          },
          { type: 'tool-call', toolCallId: 'call_2', toolName: 'read_file', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_1',
            toolName: 'read_file',
            output: { type: 'text', value: 'alpha' },
          },
          {
            type: 'tool-result',
            toolCallId: 'call_2',
            toolName: 'read_file',
            output: { type: 'error-text', value: 'bad arguments' },
          },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'A later note.' }] },
    ]);
    expect(call.tools).toEqual([
      {
        type: 'function',
        name: 'read_file',
        description: 'Reads a file.',
        inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
      },
    ]);
    expect(call.toolChoice).toEqual({ type: 'auto' });
  });

  it('passes the configured settings and provider options through on every call', async () => {
    const mock = new MockLanguageModelV3({ doGenerate: generated([{ type: 'text', text: 'ok' }]) });
    const providerOptions = { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } };
    const model = aiSdkModel(mock, { maxOutputTokens: 2048, temperature: 0.2, providerOptions });
    await model.generate(request([{ kind: 'user', id: 'u1', content: 'Hi' }], { tools: [] }));
    const call = mock.doGenerateCalls[0] as LanguageModelV3CallOptions;
    expect(call).toMatchObject({ maxOutputTokens: 2048, temperature: 0.2, providerOptions });
    expect(call.tools).toBeUndefined();
  });
});

describe('aiSdkModel: reading an answer', () => {
  it('reads text, reasoning with its provider metadata, tool calls, usage and the finish reason', async () => {
    const mock = new MockLanguageModelV3({
      modelId: 'mock-1',
      doGenerate: generated(
        [
          { type: 'reasoning', text: 'Think.', providerMetadata: signed },
          { type: 'text', text: 'Calling ' },
          { type: 'text', text: 'the tool.' },
          { type: 'tool-call', toolCallId: 'tc_1', toolName: 'read_file', input: '{"path":"x"}' },
          {
            type: 'tool-call',
            toolCallId: 'srv_1',
            toolName: 'web_search',
            input: '{}',
            providerExecuted: true,
          },
        ],
        'tool-calls',
      ),
    });
    const model = aiSdkModel(mock);
    expect(model.model).toBe('mock-1');
    expect(await model.generate(request([{ kind: 'user', id: 'u1', content: 'Go' }]))).toEqual({
      text: 'Calling the tool.',
      reasoning: [{ text: 'Think.', providerData: signed }],
      toolCalls: [{ id: 'tc_1', name: 'read_file', arguments: '{"path":"x"}' }],
      usage: { promptTokens: 120, completionTokens: 30, cachedTokens: 100 },
      finishReason: 'tool_calls',
      model: 'mock-1',
    });
  });

  it('streams: text deltas as they come, the signature that arrives as the last reasoning delta', async () => {
    const mock = new MockLanguageModelV3({
      doStream: streamed([
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', modelId: 'mock-streamed' },
        { type: 'reasoning-start', id: '0' },
        { type: 'reasoning-delta', id: '0', delta: 'Let me ' },
        { type: 'reasoning-delta', id: '0', delta: 'think.' },
        { type: 'reasoning-delta', id: '0', delta: '', providerMetadata: signed },
        { type: 'reasoning-end', id: '0' },
        {
          type: 'reasoning-start',
          id: '1',
          providerMetadata: { anthropic: { redactedData: 'r==' } },
        },
        { type: 'reasoning-end', id: '1' },
        { type: 'text-start', id: '2' },
        { type: 'text-delta', id: '2', delta: 'Hel' },
        { type: 'text-delta', id: '2', delta: 'lo.' },
        { type: 'text-end', id: '2' },
        { type: 'tool-input-start', id: 'tc_9', toolName: 'read_file' },
        { type: 'tool-input-delta', id: 'tc_9', delta: '{"path":"y"}' },
        { type: 'tool-input-end', id: 'tc_9' },
        { type: 'tool-call', toolCallId: 'tc_9', toolName: 'read_file', input: '{"path":"y"}' },
        {
          type: 'finish',
          usage: usage(50, 9),
          finishReason: { unified: 'tool-calls', raw: 'tool_use' },
        },
      ]),
    });
    const deltas: ModelDelta[] = [];
    const response = await aiSdkModel(mock, { stream: true }).generate(
      request([{ kind: 'user', id: 'u1', content: 'Go' }], { onDelta: (d) => deltas.push(d) }),
    );
    expect(deltas).toEqual([
      { type: 'reasoning', delta: 'Let me ' },
      { type: 'reasoning', delta: 'think.' },
      { type: 'text', delta: 'Hel' },
      { type: 'text', delta: 'lo.' },
      { type: 'tool_call', index: 0, callId: 'tc_9', toolName: 'read_file', delta: '' },
      { type: 'tool_call', index: 0, callId: 'tc_9', delta: '{"path":"y"}' },
    ]);
    expect(response).toEqual({
      text: 'Hello.',
      reasoning: [
        { text: 'Let me think.', providerData: signed },
        { text: '', providerData: { anthropic: { redactedData: 'r==' } } },
      ],
      toolCalls: [{ id: 'tc_9', name: 'read_file', arguments: '{"path":"y"}' }],
      usage: { promptTokens: 50, completionTokens: 9 },
      finishReason: 'tool_calls',
      model: 'mock-streamed',
    });
  });

  it('a stream without a finish part was cut: network error', async () => {
    const mock = new MockLanguageModelV3({
      doStream: streamed([
        { type: 'text-start', id: '0' },
        { type: 'text-delta', id: '0', delta: 'Half an ans' },
      ]),
    });
    const failure = await aiSdkModel(mock, { stream: true, maxRetries: 0 })
      .generate(request([{ kind: 'user', id: 'u1', content: 'Go' }]))
      .catch((error: unknown) => error);
    expect(ModelError.isInstance(failure) && failure.kind).toBe('network');
  });
});

function apiError(
  statusCode: number | undefined,
  message: string,
  headers: Record<string, string> = {},
) {
  return new APICallError({
    message,
    url: 'http://127.0.0.1/v1/messages',
    requestBodyValues: {},
    ...(statusCode === undefined ? {} : { statusCode }),
    responseHeaders: headers,
    responseBody: JSON.stringify({ type: 'error', error: { message } }),
    ...(statusCode === undefined ? { isRetryable: true } : {}),
  });
}

async function failureOf(thrown: unknown, options: Parameters<typeof aiSdkModel>[1] = {}) {
  const mock = new MockLanguageModelV3({
    doGenerate: async () => {
      throw thrown;
    },
  });
  const error = await aiSdkModel(mock, { maxRetries: 0, ...options })
    .generate(request([{ kind: 'user', id: 'u1', content: 'Go' }]))
    .catch((caught: unknown) => caught);
  if (!ModelError.isInstance(error)) throw new Error(`not a ModelError: ${String(error)}`);
  return error;
}

describe('aiSdkModel: errors', () => {
  it.each([
    [400, 'prompt is too long: 210000 tokens > 200000 maximum', 'context_overflow'],
    [400, "This model's maximum context length is 8192 tokens", 'context_overflow'],
    [413, 'Request exceeds the maximum allowed number of bytes', 'payload_too_large'],
    [429, 'Number of request tokens has exceeded your rate limit', 'rate_limited'],
    [401, 'invalid x-api-key', 'auth'],
    [529, 'Overloaded', 'server'],
    [500, 'Internal server error', 'server'],
    [400, 'messages: text content blocks must be non-empty', 'bad_request'],
    [undefined, 'Cannot connect to API: connect ECONNREFUSED', 'network'],
  ] as const)('APICallError %s "%s" is %s', async (status, message, kind) => {
    const error = await failureOf(apiError(status, message));
    expect(error.kind).toBe(kind);
    expect(error.status).toBe(status);
  });

  it('an error part mid-stream is classified by its type', async () => {
    const mock = new MockLanguageModelV3({
      doStream: streamed([
        { type: 'stream-start', warnings: [] },
        { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      ]),
    });
    const error = await aiSdkModel(mock, { stream: true, maxRetries: 0 })
      .generate(request([{ kind: 'user', id: 'u1', content: 'Go' }]))
      .catch((caught: unknown) => caught);
    expect(ModelError.isInstance(error) && [error.kind, error.message]).toEqual([
      'server',
      'The model server failed mid-stream: overloaded_error: Overloaded',
    ]);
  });

  it('retries a 429 after the retry-after the server asked for, then answers', async () => {
    let calls = 0;
    const mock = new MockLanguageModelV3({
      doGenerate: async () => {
        calls += 1;
        if (calls === 1) throw apiError(429, 'rate limited', { 'retry-after-ms': '20' });
        return generated([{ type: 'text', text: 'after the wait' }]);
      },
    });
    const response = await aiSdkModel(mock).generate(
      request([{ kind: 'user', id: 'u1', content: 'Go' }]),
    );
    expect([calls, response.text]).toEqual([2, 'after the wait']);
  });

  it('fails at once with retryAfterMs when the server asks for a longer wait than allowed', async () => {
    const started = Date.now();
    const error = await failureOf(apiError(429, 'rate limited', { 'retry-after': '3600' }), {
      maxRetries: 3,
      maxRetryWaitMs: 1000,
    });
    expect([error.kind, error.retryAfterMs]).toEqual(['rate_limited', 3_600_000]);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('refuses what is not a v3 language model with a ConfigError', () => {
    expect(() => aiSdkModel({} as never)).toThrow(ConfigError);
    expect(() =>
      aiSdkModel({ specificationVersion: 'v2', doGenerate() {}, doStream() {} } as never),
    ).toThrow(/specification v3/);
    expect(() => aiSdkModel(new MockLanguageModelV3(), { maxRetries: -1 })).toThrow(ConfigError);
  });
});

describe('aiSdkModel: abort', () => {
  it('ends a request the provider never answers as soon as the signal aborts', async () => {
    const mock = new MockLanguageModelV3({ doGenerate: () => new Promise(() => {}) });
    const controller = new AbortController();
    const pending = aiSdkModel(mock).generate(
      request([{ kind: 'user', id: 'u1', content: 'Go' }], { signal: controller.signal }),
    );
    controller.abort();
    const error = await pending.catch((caught: unknown) => caught);
    expect(ModelError.isInstance(error) && error.kind).toBe('aborted');
  });

  it('ends a stream mid-way and cancels it', async () => {
    let cancelled = false;
    const controller = new AbortController();
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      start(streamController) {
        streamController.enqueue({ type: 'text-start', id: '0' });
        streamController.enqueue({ type: 'text-delta', id: '0', delta: 'first' });
      },
      cancel() {
        cancelled = true;
      },
    });
    const mock = new MockLanguageModelV3({ doStream: async () => ({ stream }) });
    const error = await aiSdkModel(mock, { stream: true })
      .generate(
        request([{ kind: 'user', id: 'u1', content: 'Go' }], {
          signal: controller.signal,
          onDelta: () => controller.abort(),
        }),
      )
      .catch((caught: unknown) => caught);
    expect(ModelError.isInstance(error) && error.kind).toBe('aborted');
    expect(cancelled).toBe(true);
  });
});
