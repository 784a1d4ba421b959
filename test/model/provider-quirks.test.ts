import { createAgentLoop, MemorySessionStore, runTurn } from 'loopkeeper';
import type { ModelRequest, OpenAIChatModelOptions } from 'loopkeeper/model';
import { fakeFaults } from 'loopkeeper/testing';
import { describe, expect, it } from 'vitest';
import { fakeServerModel, fakeServerPerTest } from '../support/fake-server.js';
import { sharedTokenCounter } from '../support/loop-harness.js';

const server = fakeServerPerTest();

function model(options: Partial<OpenAIChatModelOptions> = {}) {
  return fakeServerModel(server(), options);
}

function request(signal = new AbortController().signal): ModelRequest {
  return { transcript: [{ kind: 'user', id: 'u1', content: 'Hello?' }], tools: [], signal };
}

function completion(usage: unknown) {
  return fakeFaults.rawResponse({
    body: {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-test',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Hi.' }, finish_reason: 'stop' },
      ],
      usage,
    },
  });
}

/** An SSE body from chunk deltas (choice 0), a finish chunk and `[DONE]`. */
function sse(deltas: readonly Record<string, unknown>[], finishReason: string, usage?: unknown) {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-test', choices, ...extra })}\n\n`;
  const body = [
    ...deltas.map((delta) => chunk([{ index: 0, delta, finish_reason: null }])),
    chunk([{ index: 0, delta: {}, finish_reason: finishReason }]),
    ...(usage === undefined ? [] : [chunk([], { usage })]),
    'data: [DONE]\n\n',
  ].join('');
  return fakeFaults.rawResponse({ headers: { 'content-type': 'text/event-stream' }, body });
}

describe('openAIChatModel usage blocks that are not numbers', () => {
  for (const usage of [
    { completion_tokens: 3, total_tokens: 3 },
    { prompt_tokens: '12', completion_tokens: 3 },
    { prompt_tokens: 12 },
    {},
  ]) {
    it(`keeps the answer and reports no usage for ${JSON.stringify(usage)}`, async () => {
      server().enqueue(completion(usage));
      const response = await model({ maxRetries: 0 }).generate(request());
      expect(response.text).toBe('Hi.');
      expect(response.usage).toBeUndefined();
    });
  }

  it('lets a loop run complete and log the answer, streamed or not', async () => {
    server().enqueue(
      completion({ completion_tokens: 3 }),
      sse([{ role: 'assistant', content: 'Streamed hi.' }], 'stop', { prompt_tokens: null }),
    );
    const store = new MemorySessionStore();
    const tokens = await sharedTokenCounter();
    for (const stream of [false, true]) {
      const loop = createAgentLoop({
        model: model({ maxRetries: 0, stream }),
        store,
        sessionId: `usage-${stream}`,
        tokens,
      });
      loop.start();
      expect((await runTurn(loop, 'Hello?')).outcome).toBe('completed');
      expect(loop.session.items.at(-1)).toMatchObject({
        kind: 'assistant',
        text: stream ? 'Streamed hi.' : 'Hi.',
      });
    }
  });
});

describe('openAIChatModel streamed tool-call deltas without index', () => {
  it('continues the last call, or starts a new one when the delta carries a new id', async () => {
    const call = (fields: Record<string, unknown>) => ({
      tool_calls: [{ type: 'function', ...fields }],
    });
    server().enqueue(
      sse(
        [
          { role: 'assistant', content: null },
          call({ id: 'call_a', function: { name: 'get_weather', arguments: '' } }),
          call({ function: { arguments: '{"city":' } }),
          call({ function: { arguments: '"Paris"}' } }),
          call({ id: 'call_b', function: { name: 'get_time', arguments: '{"zone"' } }),
          call({ function: { arguments: ':"CET"}' } }),
        ],
        'tool_calls',
      ),
    );
    const response = await model({ stream: true, maxRetries: 0 }).generate(request());
    expect(response.toolCalls).toEqual([
      { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_b', name: 'get_time', arguments: '{"zone":"CET"}' },
    ]);
  });

  it('still places indexed deltas by index', async () => {
    const call = (fields: Record<string, unknown>) => ({
      tool_calls: [{ type: 'function', ...fields }],
    });
    server().enqueue(
      sse(
        [
          call({ index: 0, id: 'call_a', function: { name: 'a', arguments: '{' } }),
          call({ index: 1, id: 'call_b', function: { name: 'b', arguments: '{' } }),
          call({ index: 0, function: { arguments: '}' } }),
          call({ index: 1, function: { arguments: '}' } }),
        ],
        'tool_calls',
      ),
    );
    const response = await model({ stream: true, maxRetries: 0 }).generate(request());
    expect(response.toolCalls?.map((entry) => [entry.id, entry.arguments])).toEqual([
      ['call_a', '{}'],
      ['call_b', '{}'],
    ]);
  });
});
