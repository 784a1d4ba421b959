import {
  createAgentLoop,
  createCompactor,
  defineTool,
  MemorySessionStore,
  runTurn,
  tokenBudgetTrigger,
  validateTranscript,
} from 'loopkeeper';
import { openAIResponsesModel } from 'loopkeeper/model';
import { type FakeResponsesServer, startFakeResponsesServer } from 'loopkeeper/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { readSession, recordTelemetry, sharedTokenCounter } from '../support/loop-harness.js';

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks up a word.',
  parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
  execute: ({ word }: { word: string }) => `definition of ${word}`,
});

let server: FakeResponsesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type InputItem = Readonly<Record<string, unknown>>;
const inputOf = (index: number): readonly InputItem[] => {
  const input = server?.requests[index]?.body?.input;
  return Array.isArray(input) ? input : [];
};

describe('openAIResponsesModel', () => {
  for (const stream of [false, true]) {
    it(`stateless (store: false, ${stream ? 'streaming' : 'one response'}): every earlier reasoning item goes back with its encrypted_content and no server id, also after a reopen`, async () => {
      server = await startFakeResponsesServer({
        replies: [
          {
            reasoning: [{ summary: 'Look the word up first.' }],
            toolCalls: [{ id: 'call_1', name: 'lookup', arguments: { word: 'loop' } }],
          },
          { reasoning: [{ summary: 'Answer from the result.' }], text: 'A loop repeats.' },
          { reasoning: [{ summary: 'Short follow-up.' }], text: 'Yes.' },
          { text: 'Still here.' },
        ],
      });
      const model = openAIResponsesModel({
        baseURL: server.url,
        apiKey: 'test',
        model: 'gpt-test',
        stream,
      });
      const store = new MemorySessionStore();
      const tokens = await sharedTokenCounter();
      const loop = createAgentLoop({ model, tools: [lookup], store, tokens });
      loop.start();
      expect((await runTurn(loop, 'What is a loop?')).outcome).toBe('completed');
      expect((await runTurn(loop, 'Sure?')).outcome).toBe('completed');
      const { sessionId } = loop.session;
      loop.stop();

      // Each request asked for encrypted reasoning and stored nothing.
      for (const request of server.requests) {
        expect(request.body).toMatchObject({
          store: false,
          include: ['reasoning.encrypted_content'],
        });
      }
      // Nothing sent carries a server item id (the fake refuses those with store: false, too).
      for (const index of [0, 1, 2]) {
        expect(inputOf(index).filter((item) => 'id' in item)).toEqual([]);
      }
      const reasoningSent = (index: number) =>
        inputOf(index)
          .filter((item) => item['type'] === 'reasoning')
          .map((item) => item['encrypted_content']);
      expect(reasoningSent(1)).toEqual(['enc:rs_req_1_1']);
      expect(reasoningSent(2)).toEqual(['enc:rs_req_1_1', 'enc:rs_req_2_1']);
      expect(inputOf(2).find((item) => item['type'] === 'reasoning')).toEqual({
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: 'Look the word up first.' }],
        encrypted_content: 'enc:rs_req_1_1',
      });

      // A new loop on the same log sends the same encrypted reasoning back.
      const reopened = createAgentLoop({ model, tools: [lookup], store, tokens, sessionId });
      reopened.start();
      expect((await runTurn(reopened, 'And now?')).outcome).toBe('completed');
      expect(reasoningSent(3)).toEqual(['enc:rs_req_1_1', 'enc:rs_req_2_1', 'enc:rs_req_3_1']);
      reopened.stop();
      const events = await readSession(store, sessionId);
      const logged = events.flatMap((event) =>
        event.type === 'items-appended'
          ? event.items.flatMap((item) => (item.kind === 'assistant' ? (item.reasoning ?? []) : []))
          : [],
      );
      expect(logged[0]).toEqual({
        text: 'Look the word up first.',
        providerData: {
          openai: {
            id: 'rs_req_1_1',
            encryptedContent: 'enc:rs_req_1_1',
            summary: ['Look the word up first.'],
          },
        },
      });
    });
  }

  it('previous_response_id: sends only what was added since the previous response, chained by its id', async () => {
    server = await startFakeResponsesServer({
      replies: [
        { toolCalls: [{ id: 'call_1', name: 'lookup', arguments: { word: 'loop' } }] },
        { text: 'A loop repeats.' },
      ],
    });
    const model = openAIResponsesModel({
      baseURL: server.url,
      apiKey: 'test',
      model: 'gpt-test',
      conversation: 'previous_response_id',
    });
    const loop = createAgentLoop({ model, tools: [lookup], tokens: await sharedTokenCounter() });
    loop.start();
    expect((await runTurn(loop, 'What is a loop?')).outcome).toBe('completed');
    loop.stop();
    expect(server.requests[0]?.body).toMatchObject({ store: true });
    expect(server.requests[0]?.body?.previous_response_id).toBeUndefined();
    expect(server.requests[1]?.body).toMatchObject({
      store: true,
      previous_response_id: 'resp_req_1',
      input: [{ type: 'function_call_output', call_id: 'call_1', output: 'definition of loop' }],
    });
  });

  it('server-side compaction: the compaction item becomes a provider marker, our trigger leaves the span alone, and the next request drops what it replaced', async () => {
    server = await startFakeResponsesServer({
      replies: [
        {
          toolCalls: [{ id: 'call_1', name: 'lookup', arguments: { word: 'loop' } }],
          compaction: false,
        },
        // The server compacts here, and reports the large prompt it was sent.
        {
          text: 'A loop repeats.',
          usage: { promptTokens: 50_000, completionTokens: 5 },
          compaction: true,
        },
        { text: 'Yes.', compaction: false },
      ],
    });
    const model = openAIResponsesModel({
      baseURL: server.url,
      apiKey: 'test',
      model: 'gpt-test',
      contextManagement: { compactThreshold: 40_000 },
    });
    const store = new MemorySessionStore();
    // Our own trigger would fire on the reported 50,000 prompt tokens if it still counted them.
    const compactor = createCompactor({ trigger: tokenBudgetTrigger({ maxTokens: 20_000 }) });
    const loop = createAgentLoop({
      model,
      tools: [lookup],
      store,
      compactor,
      tokens: await sharedTokenCounter(),
      instructions: 'Be brief.',
    });
    const telemetry = recordTelemetry(loop);
    loop.start();
    expect((await runTurn(loop, 'What is a loop?')).outcome).toBe('completed');
    expect((await runTurn(loop, 'Sure?')).outcome).toBe('completed');
    loop.stop();

    expect(server.requests[0]?.body?.context_management).toEqual([
      { type: 'compaction', compact_threshold: 40_000 },
    ]);
    const events = await readSession(store, loop.session.sessionId);
    const markers = events.filter((event) => event.type === 'transcript-replaced');
    expect(markers).toMatchObject([{ tier: 'provider', strategies: ['openai:compaction'] }]);
    expect(telemetry.filter((event) => event.type === 'CompactionStarted')).toEqual([]);
    // The log keeps everything: the first question is still there.
    expect(JSON.stringify(events)).toContain('What is a loop?');

    const next = inputOf(2);
    expect(next[0]).toEqual({
      type: 'compaction',
      encrypted_content: expect.stringMatching(/^compacted:cmp_req_2_1:/),
    });
    expect(JSON.stringify(next)).not.toContain('What is a loop?');
    expect(JSON.stringify(next)).not.toContain('definition of loop');
    expect(next.slice(1)).toEqual([
      { type: 'message', role: 'assistant', content: 'A loop repeats.' },
      { type: 'message', role: 'user', content: 'Sure?' },
    ]);
    expect(validateTranscript(loop.session.items)).toEqual([]);
  });

  it('after a provider compaction our own compactor still guards the window', async () => {
    server = await startFakeResponsesServer({
      replies: [
        {
          text: 'A loop repeats.',
          compaction: true,
          usage: { promptTokens: 50_000, completionTokens: 5 },
        },
        {
          toolCalls: [{ id: 'call_big', name: 'sized', arguments: { size: 8_000 } }],
          compaction: false,
        },
        { text: 'Read it.', compaction: false },
      ],
    });
    const sized = defineTool({
      name: 'sized',
      description: 'Returns text of a given size.',
      parameters: { type: 'object', properties: { size: { type: 'integer' } }, required: ['size'] },
      execute: ({ size }: { size: number }) => 'line of output\n'.repeat(size),
    });
    const store = new MemorySessionStore();
    const loop = createAgentLoop({
      model: openAIResponsesModel({
        baseURL: server.url,
        apiKey: 'test',
        model: 'gpt-test',
        contextManagement: { compactThreshold: 40_000 },
      }),
      tools: [sized],
      store,
      compactor: createCompactor({ trigger: tokenBudgetTrigger({ maxTokens: 20_000 }) }),
      tokens: await sharedTokenCounter(),
    });
    loop.start();
    expect((await runTurn(loop, 'What is a loop?')).outcome).toBe('completed');
    expect((await runTurn(loop, 'Read the big file')).outcome).toBe('completed');
    loop.stop();
    const events = await readSession(store, loop.session.sessionId);
    const tiers = events.flatMap((event) =>
      event.type === 'transcript-replaced' ? [event.tier] : [],
    );
    expect(tiers[0]).toBe('provider');
    expect(tiers.length).toBeGreaterThan(1);
    expect(tiers.slice(1).every((tier) => tier !== 'provider')).toBe(true);
    // The request after the big output was cut back under our budget.
    expect(Buffer.byteLength(server.requests[2]?.rawBody ?? '')).toBeLessThan(80_000);
  });
});
