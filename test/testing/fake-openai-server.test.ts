import { type FakeOpenAIServer, fakeFaults, startFakeOpenAIServer } from 'loopkeeper/testing';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';

const servers: FakeOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(options: Parameters<typeof startFakeOpenAIServer>[0] = {}) {
  const server = await startFakeOpenAIServer(options);
  servers.push(server);
  return server;
}

const messages = [{ role: 'user' as const, content: 'hello' }];

function post(server: FakeOpenAIServer, body: unknown, path = '/chat/completions') {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
    body: JSON.stringify(body),
  });
}

/** The `data:` payloads of an SSE body, in order. */
function events(text: string): string[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
}

describe('startFakeOpenAIServer', () => {
  it('listens on loopback and records every request with its parsed body and headers', async () => {
    const server = await start({ replies: [{ text: 'hi' }] });
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/v1`);
    await post(server, { model: 'm', messages, temperature: 0 });

    expect(server.requests).toEqual([
      expect.objectContaining({
        index: 0,
        method: 'POST',
        path: '/v1/chat/completions',
        body: { model: 'm', messages, temperature: 0 },
        stream: false,
      }),
    ]);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer k');
    expect(server.pendingReplies).toBe(0);
  });

  it('answers from the queue, then the handler, then says plainly that the script ran out', async () => {
    const server = await start({ replies: [{ text: 'queued' }] });
    const client = new OpenAI({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
    const ask = () => client.chat.completions.create({ model: 'm', messages });

    expect((await ask()).choices[0]?.message.content).toBe('queued');
    server.setHandler((request) => ({ text: `handled request ${request.index}` }));
    expect((await ask()).choices[0]?.message.content).toBe('handled request 1');
    server.setHandler(undefined);
    await expect(ask()).rejects.toThrow(/no scripted reply left for request #3/);
    server.setHandler(() => {
      throw new Error('handler bug');
    });
    await expect(ask()).rejects.toThrow(/handler threw: handler bug/);
  });

  it('refuses unknown paths, bodies without messages and wrong keys without using a reply', async () => {
    const server = await start({ replies: [{ text: 'kept' }], apiKey: 'k' });
    expect((await post(server, { messages }, '/embeddings')).status).toBe(404);
    expect((await post(server, { model: 'm' })).status).toBe(400);
    const refused = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer wrong' },
      body: JSON.stringify({ model: 'm', messages }),
    });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
    expect(server.pendingReplies).toBe(1);
    expect(server.requests).toHaveLength(3);
  });

  it('estimates usage from the request unless the reply gives numbers', async () => {
    const server = await start({
      replies: [
        { text: 'a' },
        { text: 'b' },
        { text: 'c', usage: { promptTokens: 42, cachedTokens: 40 } },
      ],
    });
    const client = new OpenAI({ baseURL: server.url, apiKey: 'k' });
    const small = await client.chat.completions.create({ model: 'm', messages });
    const large = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'long '.repeat(400) }],
    });
    const explicit = await client.chat.completions.create({ model: 'm', messages });

    expect(small.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(large.usage?.prompt_tokens).toBeGreaterThan((small.usage?.prompt_tokens ?? 0) + 400);
    expect(explicit.usage).toMatchObject({
      prompt_tokens: 42,
      prompt_tokens_details: { cached_tokens: 40 },
    });
  });

  it('streams SSE chunks ending in [DONE], with a usage chunk only when asked for', async () => {
    const server = await start({
      replies: [
        {
          toolCalls: [
            { name: 'bash', arguments: { command: 'ls -la' } },
            { name: 'bash', arguments: '{}' },
          ],
        },
        { text: 'no usage please' },
      ],
    });
    const withUsage = events(
      await (
        await post(server, {
          model: 'm',
          messages,
          stream: true,
          stream_options: { include_usage: true },
        })
      ).text(),
    );
    expect(withUsage.at(-1)).toBe('[DONE]');
    const chunks = withUsage.slice(0, -1).map((data) => JSON.parse(data));
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: expect.any(Number) },
    });
    expect(chunks.at(-2)).toMatchObject({ choices: [{ finish_reason: 'tool_calls' }] });
    const starts = chunks.flatMap((chunk) =>
      (chunk.choices[0]?.delta.tool_calls ?? []).filter(
        (call: { id?: string }) => call.id !== undefined,
      ),
    );
    expect(starts.map((call: { index: number; id: string }) => [call.index, call.id])).toEqual([
      [0, 'call_1'],
      [1, 'call_2'],
    ]);

    const withoutUsage = events(
      await (await post(server, { model: 'm', messages, stream: true })).text(),
    );
    expect(withoutUsage.some((data) => data.includes('"usage"'))).toBe(false);
  });

  it('cuts a truncated stream before any finish_reason or [DONE]', async () => {
    const server = await start({
      replies: [fakeFaults.truncatedStream({ afterChunks: 50, how: 'end' })],
    });
    const body = await (await post(server, { model: 'm', messages, stream: true })).text();
    expect(events(body).length).toBeGreaterThan(1);
    expect(body).not.toMatch(/finish_reason":"|\[DONE\]/);
  });

  it('sends 429 with its retry-after header and an OpenAI-shaped body', async () => {
    const server = await start({ replies: [fakeFaults.rateLimited({ retryAfterSeconds: 2 })] });
    const response = await post(server, { model: 'm', messages });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('2');
    expect(await response.json()).toEqual({
      error: expect.objectContaining({
        type: 'requests',
        code: 'rate_limit_exceeded',
        param: null,
      }),
    });
  });

  it('closes promptly while a request hangs, failing that request', async () => {
    const server = await start({ replies: [fakeFaults.hang()] });
    const pending = post(server, { model: 'm', messages }).then(
      (response) => response.text(),
      (error: unknown) => error,
    );
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await server.close();
    expect(await pending).toBeInstanceOf(Error);
    await server.close();
  });
});
