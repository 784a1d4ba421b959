import { ConfigError, type Item, ModelError, openAIChatModel } from 'loopkeeper';
import type { ModelDelta, ModelRequest, OpenAIChatModelOptions, ToolSpec } from 'loopkeeper/model';
import { fakeFaults } from 'loopkeeper/testing';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { fakeServerModel, fakeServerPerTest } from '../support/fake-server.js';

const server = fakeServerPerTest();

function model(options: Partial<OpenAIChatModelOptions> = {}) {
  return fakeServerModel(server(), options);
}

const question: Item = {
  kind: 'user',
  id: 'u1',
  content: 'What is the weather in Paris and Rome?',
};
const weatherTool: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

function request(extra: Partial<ModelRequest> = {}): ModelRequest {
  return { transcript: [question], tools: [], signal: new AbortController().signal, ...extra };
}

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!ModelError.isInstance(error)) throw new Error(`expected a ModelError, got ${String(error)}`);
  return error;
}

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('openAIChatModel', () => {
  it('sends instructions and transcript as chat messages and returns text with usage', async () => {
    server().enqueue({
      text: 'It is sunny.',
      usage: { promptTokens: 1200, completionTokens: 5, cachedTokens: 1024 },
      model: 'gpt-test-2026-01-01',
    });
    const response = await model({ temperature: 0.2 }).generate(
      request({ instructions: 'You are a weather agent.' }),
    );

    expect(response).toEqual({
      text: 'It is sunny.',
      usage: { promptTokens: 1200, completionTokens: 5, cachedTokens: 1024 },
      finishReason: 'stop',
      model: 'gpt-test-2026-01-01',
    });
    const sent = server().requests[0];
    expect(sent?.headers.authorization).toBe('Bearer test-key');
    expect(sent?.body).toMatchObject({
      model: 'gpt-test',
      temperature: 0.2,
      messages: [
        { role: 'system', content: 'You are a weather agent.' },
        { role: 'user', content: 'What is the weather in Paris and Rome?' },
      ],
    });
    expect(sent?.body?.tools).toBeUndefined();
    expect(sent?.body?.parallel_tool_calls).toBeUndefined();
    expect(sent?.stream).toBe(false);
  });

  it('declares tools, allows parallel calls and returns every call with raw arguments', async () => {
    server().enqueue({
      reasoning: 'Two cities, two lookups.',
      toolCalls: [
        { id: 'call_paris', name: 'get_weather', arguments: { city: 'Paris' } },
        { id: 'call_rome', name: 'get_weather', arguments: '{"city": "Rome"' },
      ],
    });
    const response = await model().generate(request({ tools: [weatherTool] }));

    expect(response.toolCalls).toEqual([
      { id: 'call_paris', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_rome', name: 'get_weather', arguments: '{"city": "Rome"' },
    ]);
    expect(response.reasoning).toEqual([{ text: 'Two cities, two lookups.' }]);
    expect(response.finishReason).toBe('tool_calls');
    expect(server().requests[0]?.body).toMatchObject({
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Current weather for a city',
            parameters: weatherTool.parameters,
          },
        },
      ],
      parallel_tool_calls: true,
    });
  });

  it('renders earlier tool calls and results as assistant and tool messages', async () => {
    server().enqueue({ text: 'Paris is sunny.' });
    const transcript: Item[] = [
      question,
      {
        kind: 'assistant',
        id: 'a1',
        toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
      },
      {
        kind: 'toolResult',
        id: 't1',
        callId: 'call_1',
        toolName: 'get_weather',
        content: 'sunny',
        isError: false,
      },
    ];
    await model().generate(request({ transcript, tools: [weatherTool] }));

    expect(server().requests[0]?.body?.messages).toMatchObject([
      { role: 'user' },
      {
        role: 'assistant',
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
    ]);
  });

  it('streams text deltas, accumulates tool-call deltas by index and reads the usage chunk', async () => {
    server().enqueue({
      text: 'Looking both cities up now.',
      reasoning: 'Parallel lookups.',
      toolCalls: [
        { id: 'call_paris', name: 'get_weather', arguments: { city: 'Paris', units: 'metric' } },
        { id: 'call_rome', name: 'get_weather', arguments: { city: 'Rome', units: 'metric' } },
      ],
      usage: { promptTokens: 300, completionTokens: 40, cachedTokens: 256 },
      chunkSize: 5,
    });
    const deltas: string[] = [];
    const response = await model({ stream: true }).generate(
      request({
        tools: [weatherTool],
        onDelta: (delta) => {
          if (delta.type === 'text') deltas.push(delta.delta);
        },
      }),
    );

    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Looking both cities up now.');
    expect(response).toEqual({
      text: 'Looking both cities up now.',
      reasoning: [{ text: 'Parallel lookups.' }],
      toolCalls: [
        { id: 'call_paris', name: 'get_weather', arguments: '{"city":"Paris","units":"metric"}' },
        { id: 'call_rome', name: 'get_weather', arguments: '{"city":"Rome","units":"metric"}' },
      ],
      usage: { promptTokens: 300, completionTokens: 40, cachedTokens: 256 },
      finishReason: 'tool_calls',
      model: 'gpt-test',
    });
    expect(server().requests[0]?.body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("reports reasoning and each tool call's argument pieces through onDelta, by index, also when calls interleave", async () => {
    server().enqueue({
      reasoning: 'Two cities: two calls.',
      toolCalls: [
        { id: 'call_paris', name: 'get_weather', arguments: { city: 'Paris' } },
        { id: 'call_rome', name: 'get_weather', arguments: { city: 'Rome' } },
      ],
      chunkSize: 4,
      interleaveToolCalls: true,
    });
    const deltas: ModelDelta[] = [];
    const response = await model({ stream: true }).generate(
      request({ tools: [weatherTool], onDelta: (delta) => deltas.push(delta) }),
    );

    const reasoning = deltas.flatMap((delta) => (delta.type === 'reasoning' ? [delta.delta] : []));
    expect(reasoning.length).toBeGreaterThan(1);
    expect(reasoning.join('')).toBe('Two cities: two calls.');
    const calls = deltas.flatMap((delta) => (delta.type === 'tool_call' ? [delta] : []));
    // The pieces arrive in turns, yet each one names its call.
    expect(calls.slice(0, 4).map((delta) => delta.index)).toEqual([0, 1, 0, 1]);
    expect(calls[0]).toEqual({
      type: 'tool_call',
      index: 0,
      callId: 'call_paris',
      toolName: 'get_weather',
      delta: '',
    });
    for (const [index, call] of (response.toolCalls ?? []).entries()) {
      const own = calls.filter((delta) => delta.index === index);
      expect(own.every((delta) => delta.callId === call.id && delta.toolName === call.name)).toBe(
        true,
      );
      expect(own.map((delta) => delta.delta).join('')).toBe(call.arguments);
    }
    expect(response.toolCalls?.map((call) => call.arguments)).toEqual([
      '{"city":"Paris"}',
      '{"city":"Rome"}',
    ]);
    // Reasoning comes before the calls, as the server sent it.
    expect(deltas.findIndex((delta) => delta.type === 'tool_call')).toBeGreaterThan(
      deltas.findLastIndex((delta) => delta.type === 'reasoning'),
    );
  });

  it('works with a client the host made', async () => {
    server().enqueue({ text: 'from my own client' });
    const client = new OpenAI({ baseURL: server().url, apiKey: 'host-key', maxRetries: 0 });
    const adapter = openAIChatModel({ client, model: 'gpt-test' });
    expect(adapter.name).toBe('openai:gpt-test');
    await expect(adapter.generate(request())).resolves.toMatchObject({
      text: 'from my own client',
    });
    expect(server().requests[0]?.headers.authorization).toBe('Bearer host-key');
  });

  it('refuses options it cannot use with a ConfigError', () => {
    expect(() => openAIChatModel({ baseURL: server().url, apiKey: 'k', model: '' })).toThrow(
      ConfigError,
    );
    expect(() => model({ maxRetries: -1 })).toThrow(/maxRetries/);
    expect(() => model({ timeout: 0 })).toThrow(/timeout/);
  });
});

describe('openAIChatModel errors', () => {
  it('classifies a 400 context_length_exceeded as context_overflow, not retried', async () => {
    server().enqueue(fakeFaults.contextOverflow({ maxTokens: 8192, requestedTokens: 9000 }));
    const error = await failure(model().generate(request()));
    expect(error).toMatchObject({ kind: 'context_overflow', status: 400, retryable: false });
    expect(error.message).toMatch(/maximum context length is 8192 tokens/);
    expect(server().requests).toHaveLength(1);
  });

  it('classifies a compatible server overflow message without a code as context_overflow', async () => {
    server().enqueue(
      fakeFaults.httpError({
        status: 400,
        message:
          "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.",
      }),
    );
    expect(await failure(model().generate(request()))).toMatchObject({ kind: 'context_overflow' });
  });

  it('classifies a 413 as payload_too_large', async () => {
    server().enqueue(fakeFaults.payloadTooLarge());
    const error = await failure(model().generate(request()));
    expect(error).toMatchObject({ kind: 'payload_too_large', status: 413, retryable: false });
  });

  it('lets the SDK retry a 429 after its retry-after and succeeds', async () => {
    server().enqueue(fakeFaults.rateLimited({ retryAfterSeconds: 0.01 }), {
      text: 'after the wait',
    });
    await expect(model().generate(request())).resolves.toMatchObject({ text: 'after the wait' });
    expect(
      server().requests.map((received) => received.headers['x-stainless-retry-count']),
    ).toEqual(['0', '1']);
  });

  it('reports rate_limited as retryable once the retries are spent', async () => {
    server().enqueue(fakeFaults.rateLimited({ retryAfterSeconds: 0.01 }));
    const error = await failure(model({ maxRetries: 0 }).generate(request()));
    expect(error).toMatchObject({ kind: 'rate_limited', status: 429, retryable: true });
  });

  it('lets the SDK retry a 500 and succeeds', async () => {
    server().enqueue(fakeFaults.serverError(), { text: 'recovered' });
    await expect(model().generate(request())).resolves.toMatchObject({ text: 'recovered' });
    expect(server().requests).toHaveLength(2);
  });

  it('reports a 500 as a retryable server error once the retries are spent', async () => {
    server().enqueue(fakeFaults.serverError({ status: 503 }));
    const error = await failure(model({ maxRetries: 0 }).generate(request()));
    expect(error).toMatchObject({ kind: 'server', status: 503, retryable: true });
  });

  it('classifies a 401 as auth and does not retry it', async () => {
    server().enqueue(fakeFaults.unauthorized(), { text: 'never sent' });
    const error = await failure(model({ maxRetries: 2 }).generate(request()));
    expect(error).toMatchObject({ kind: 'auth', status: 401, retryable: false });
    expect(server().requests).toHaveLength(1);
  });

  it('classifies a server that never answers within the timeout as timeout', async () => {
    server().enqueue(fakeFaults.hang());
    const error = await failure(model({ timeout: 100, maxRetries: 0 }).generate(request()));
    expect(error).toMatchObject({ kind: 'timeout', retryable: true });
  });

  it('classifies a stream that stalls between chunks for longer than the timeout as timeout', async () => {
    server().enqueue({ text: 'slow words '.repeat(20), chunkDelayMs: 150 });
    const error = await failure(
      model({ stream: true, timeout: 50, maxRetries: 0 }).generate(request()),
    );
    expect(error).toMatchObject({ kind: 'timeout', retryable: true });
    expect(error.message).toMatch(/stalled/);
  });

  it('classifies a connection reset as network, and the SDK retries it', async () => {
    server().enqueue(fakeFaults.reset());
    const error = await failure(model({ maxRetries: 0 }).generate(request()));
    expect(error).toMatchObject({ kind: 'network', retryable: true });

    server().enqueue(fakeFaults.reset(), { text: 'second connection worked' });
    await expect(model({ maxRetries: 1 }).generate(request())).resolves.toMatchObject({
      text: 'second connection worked',
    });
  });

  it('classifies a body that is not JSON as invalid_response, not retryable', async () => {
    server().enqueue(fakeFaults.malformedJson());
    const error = await failure(model().generate(request()));
    expect(error).toMatchObject({ kind: 'invalid_response', retryable: false });
    expect(server().requests).toHaveLength(1);
  });

  it('classifies a streamed chunk that is not JSON as invalid_response', async () => {
    server().enqueue(fakeFaults.malformedJson({ body: '{"choices": [' }));
    // The SDK logs the unparsable chunk before throwing; keep test output clean.
    const client = new OpenAI({ baseURL: server().url, apiKey: 'k', logLevel: 'off' });
    const error = await failure(
      openAIChatModel({ client, model: 'gpt-test', stream: true }).generate(request()),
    );
    expect(error).toMatchObject({ kind: 'invalid_response' });
  });

  it('classifies a stream that ends before its finish_reason as network', async () => {
    server().enqueue(fakeFaults.truncatedStream({ how: 'end', afterChunks: 3 }));
    const deltas: string[] = [];
    const error = await failure(
      model({ stream: true }).generate(
        request({ onDelta: (delta) => deltas.push(delta.type === 'text' ? delta.delta : '') }),
      ),
    );
    expect(error).toMatchObject({ kind: 'network', retryable: true });
    expect(error.message).toMatch(/no finish_reason/);
    expect(deltas.length).toBeGreaterThan(0);
  });

  it('classifies a stream whose socket is cut as network', async () => {
    server().enqueue(fakeFaults.truncatedStream({ how: 'destroy' }));
    const error = await failure(model({ stream: true }).generate(request()));
    expect(error).toMatchObject({ kind: 'network', retryable: true });
  });

  it('classifies an answer with no choices as invalid_response', async () => {
    server().enqueue(
      fakeFaults.rawResponse({
        body: { id: 'chatcmpl-empty', object: 'chat.completion', model: 'gpt-test', choices: [] },
      }),
    );
    const error = await failure(model().generate(request()));
    expect(error).toMatchObject({ kind: 'invalid_response' });
    expect(error.message).toMatch(/no choices/);
  });

  it('classifies HTTP errors the same way when streaming, and retries them', async () => {
    server().enqueue(fakeFaults.contextOverflow());
    expect(await failure(model({ stream: true }).generate(request()))).toMatchObject({
      kind: 'context_overflow',
    });
    server().enqueue(fakeFaults.rateLimited({ retryAfterSeconds: 0.01 }), {
      text: 'streamed after the wait',
    });
    await expect(model({ stream: true }).generate(request())).resolves.toMatchObject({
      text: 'streamed after the wait',
    });
  });

  it('ends a hanging request as aborted as soon as the signal aborts', async () => {
    server().enqueue(fakeFaults.hang());
    const controller = new AbortController();
    const pending = model().generate(request({ signal: controller.signal }));
    await waitFor(() => server().requests.length === 1);
    controller.abort();
    expect(await failure(pending)).toMatchObject({ kind: 'aborted', retryable: false });
  });

  it('ends a stream as aborted when the signal aborts mid-stream', async () => {
    server().enqueue({ text: 'word '.repeat(200), chunkSize: 5, chunkDelayMs: 20 });
    const controller = new AbortController();
    const deltas: string[] = [];
    const pending = model({ stream: true }).generate(
      request({
        signal: controller.signal,
        onDelta: (delta) => {
          deltas.push(delta.type === 'text' ? delta.delta : '');
          if (deltas.length === 2) controller.abort();
        },
      }),
    );
    expect(await failure(pending)).toMatchObject({ kind: 'aborted' });
    expect(deltas.length).toBeLessThan(200);
  });
});
