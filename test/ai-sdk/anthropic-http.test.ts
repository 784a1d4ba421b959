import { createAnthropic } from '@ai-sdk/anthropic';
import {
  createAgentLoop,
  createCompactor,
  defineTool,
  MemorySessionStore,
  ModelError,
  runTurn,
  tokenBudgetTrigger,
} from 'loopkeeper';
import { aiSdkModel } from 'loopkeeper/ai-sdk';
import {
  type FakeAnthropicServer,
  fakeAnthropicFaults,
  startFakeAnthropicServer,
} from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readSession, recordTelemetry, sharedTokenCounter } from '../support/loop-harness.js';

let tokens: TokenCounter;
let server: FakeAnthropicServer | undefined;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const thinking = {
  thinking: 'The user wants a deploy — naïve plan: check, then ship ✓ "quoted" \\ slash',
  signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDDs/sT+Nws7Z1xLgiMO2o==',
};
const redacted = 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP';
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys the release.',
  parameters: { type: 'object', properties: { version: { type: 'string' } } },
  execute: ({ version }: { version: string }) => `deployed ${version}`,
});

function modelFor(url: string, stream: boolean, options: Parameters<typeof aiSdkModel>[1] = {}) {
  const anthropic = createAnthropic({ baseURL: url, apiKey: 'test-key' });
  return aiSdkModel(anthropic('claude-test-4'), {
    stream,
    maxOutputTokens: 4096,
    providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } },
    ...options,
  });
}

type Block = Record<string, unknown>;
function messagesOf(index: number): { role: string; content: Block[] }[] {
  const body = server?.requests[index]?.body;
  return (body?.['messages'] ?? []) as { role: string; content: Block[] }[];
}

describe.each([false, true])('aiSdkModel on @ai-sdk/anthropic over HTTP (stream: %s)', (stream) => {
  it('sends a signed and a redacted thinking block back byte-identical in the next request of the tool turn', async () => {
    server = await startFakeAnthropicServer({
      apiKey: 'test-key',
      replies: [
        {
          thinking: [thinking],
          redactedThinking: [redacted],
          text: 'Deploying.',
          toolCalls: [{ id: 'toolu_deploy', name: 'deploy', input: { version: '7' } }],
          inputTokens: 900,
          cacheReadTokens: 600,
        },
        { text: 'Release 7 is out.', inputTokens: 1000 },
      ],
    });
    const store = new MemorySessionStore();
    const loop = createAgentLoop({
      model: modelFor(server.url, stream),
      tools: [deploy],
      instructions: 'You deploy releases.',
      store,
      sessionId: 's1',
      tokens,
    });
    loop.start();
    const result = await runTurn(loop, 'Ship release 7.');
    loop.stop();
    expect([result.outcome, result.text]).toEqual(['completed', 'Release 7 is out.']);
    expect(server.requests).toHaveLength(2);
    const first = server.requests[0]?.body ?? {};
    expect(first['system']).toEqual([{ type: 'text', text: 'You deploy releases.' }]);
    expect(first['thinking']).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(first['stream']).toBe(stream ? true : undefined);
    const [user, assistant, toolResults] = messagesOf(1);
    expect(user).toEqual({ role: 'user', content: [{ type: 'text', text: 'Ship release 7.' }] });
    expect(assistant?.content).toEqual([
      { type: 'thinking', thinking: thinking.thinking, signature: thinking.signature },
      { type: 'redacted_thinking', data: redacted },
      { type: 'text', text: 'Deploying.' },
      { type: 'tool_use', id: 'toolu_deploy', name: 'deploy', input: { version: '7' } },
    ]);
    expect(toolResults?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_deploy', content: 'deployed 7' },
    ]);
    // Byte for byte: the block as the server sent it appears in the raw body of the next request.
    const raw = server.requests[1]?.rawBody ?? '';
    expect(raw).toContain(JSON.stringify({ type: 'thinking', ...thinking }));
    expect(raw).toContain(JSON.stringify({ type: 'redacted_thinking', data: redacted }));
    // The log holds the provider data, and reports the provider's usage, cache reads included.
    const events = await readSession(store, 's1');
    const usage = events.filter((event) => event.type === 'usage-reported');
    expect(usage.map((event) => [event.promptTokens, event.cachedTokens])).toEqual([
      // The SDK's input total counts cache reads and writes, as the window does.
      [1500, 600],
      [1000, 0],
    ]);
  });

  it('retries a 429 after its retry-after and a 529, then answers', async () => {
    server = await startFakeAnthropicServer({
      replies: [
        fakeAnthropicFaults.rateLimited({ retryAfterSeconds: 0.01 }),
        fakeAnthropicFaults.overloaded({ retryAfterSeconds: 0.01 }),
        { text: 'Answered.' },
      ],
    });
    const loop = createAgentLoop({ model: modelFor(server.url, stream), tokens });
    loop.start();
    const result = await runTurn(loop, 'Hi');
    loop.stop();
    expect([result.outcome, result.text, server.requests.length]).toEqual([
      'completed',
      'Answered.',
      3,
    ]);
  });

  const report = defineTool({
    name: 'report',
    description: 'Returns a long report.',
    parameters: { type: 'object', properties: {} },
    execute: () => `report\n${'measurement row\n'.repeat(800)}`,
  });

  it('a prompt that is too long compacts, and the smaller retry is answered', async () => {
    server = await startFakeAnthropicServer({
      replies: [
        { toolCalls: [{ name: 'report', input: {} }] },
        { text: 'Read it.' },
        { toolCalls: [{ name: 'report', input: {} }] },
        { text: 'Read it again.' },
        fakeAnthropicFaults.promptTooLong({ maxTokens: 3000 }),
        { text: 'After the compaction.' },
      ],
    });
    const loop = createAgentLoop({
      model: modelFor(server.url, stream),
      tools: [report],
      compactor: createCompactor({ trigger: tokenBudgetTrigger({ maxTokens: 1_000_000 }) }),
      tokens,
    });
    const telemetry = recordTelemetry(loop);
    loop.start();
    await runTurn(loop, 'read the report');
    await runTurn(loop, 'read it again');
    const result = await runTurn(loop, 'summarize');
    loop.stop();
    expect([result.outcome, result.text]).toEqual(['completed', 'After the compaction.']);
    expect(telemetry.find((event) => event.type === 'CompactionStarted')).toMatchObject({
      reason: 'overflow',
    });
    const sizes = server.requests.map((request) => request.rawBody.length);
    expect(sizes[5]).toBeLessThan((sizes[4] as number) / 2);
  });

  it('a 413 prunes the largest tool output, and the smaller retry is answered', async () => {
    server = await startFakeAnthropicServer({
      replies: [
        { toolCalls: [{ name: 'report', input: {} }] },
        fakeAnthropicFaults.requestTooLarge(),
        { text: 'After the prune.' },
      ],
    });
    const loop = createAgentLoop({
      model: modelFor(server.url, stream),
      tools: [report],
      compactor: createCompactor({ trigger: tokenBudgetTrigger({ maxTokens: 100_000 }) }),
      tokens,
    });
    const telemetry = recordTelemetry(loop);
    loop.start();
    const result = await runTurn(loop, 'read the report');
    loop.stop();
    expect([result.outcome, result.text]).toEqual(['completed', 'After the prune.']);
    expect(telemetry.find((event) => event.type === 'CompactionStarted')).toMatchObject({
      reason: 'payload_too_large',
    });
    const sizes = server.requests.map((request) => request.rawBody.length);
    expect(sizes[2]).toBeLessThan((sizes[1] as number) / 2);
  });

  it('abort mid-request ends the turn as aborted; the server sees the client go', async () => {
    server = await startFakeAnthropicServer({ replies: [fakeAnthropicFaults.hang()] });
    const model = modelFor(server.url, stream);
    const controller = new AbortController();
    const pending = model.generate({
      transcript: [{ kind: 'user', id: 'u1', content: 'Hi' }],
      tools: [],
      signal: controller.signal,
    });
    while (server.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    const error = await pending.catch((caught: unknown) => caught);
    expect(ModelError.isInstance(error) && error.kind).toBe('aborted');
  });

  it('an error event mid-stream or a cut connection is a typed failure', async () => {
    server = await startFakeAnthropicServer({
      replies: [
        fakeAnthropicFaults.brokenStream({
          afterEvents: 4,
          error: { type: 'overloaded_error', message: 'Overloaded' },
        }),
        fakeAnthropicFaults.reset(),
      ],
    });
    const model = modelFor(server.url, stream, { maxRetries: 0 });
    const ask = () =>
      model
        .generate({
          transcript: [{ kind: 'user', id: 'u1', content: 'Hi' }],
          tools: [],
          signal: new AbortController().signal,
        })
        .catch((caught: unknown) => caught);
    const first = await ask();
    const second = await ask();
    // Without streaming the error event arrives as a 200 body the provider cannot read.
    expect(ModelError.isInstance(first) && first.kind).toBe(stream ? 'server' : 'invalid_response');
    expect(ModelError.isInstance(second) && second.kind).toBe('network');
  });
});

describe('aiSdkModel on @ai-sdk/anthropic: abort mid-stream', () => {
  it('stops reading after the first delta and reports aborted', async () => {
    server = await startFakeAnthropicServer({
      replies: [{ text: 'x'.repeat(400), chunkSize: 4, chunkDelayMs: 5 }],
    });
    const model = modelFor(server.url, true);
    const controller = new AbortController();
    const deltas: string[] = [];
    const error = await model
      .generate({
        transcript: [{ kind: 'user', id: 'u1', content: 'Hi' }],
        tools: [],
        signal: controller.signal,
        onDelta: (delta) => {
          deltas.push(delta.delta);
          controller.abort();
        },
      })
      .catch((caught: unknown) => caught);
    expect(ModelError.isInstance(error) && error.kind).toBe('aborted');
    expect(deltas).toEqual(['xxxx']);
  });
});
