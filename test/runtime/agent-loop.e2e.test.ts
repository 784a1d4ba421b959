import {
  type CompactionBackend,
  contextWindowTrigger,
  createAgentLoop,
  createCompactor,
  defineTool,
  effectiveHistory,
  extractiveSummarizer,
  type LoopMutator,
  MemorySessionStore,
  openAIChatModel,
  runTurn,
  tokenBudgetTrigger,
  validateTranscript,
} from 'loopkeeper';
import {
  type FakeOpenAIServer,
  fakeFaults,
  recordedSession,
  startFakeOpenAIServer,
} from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { createItemId } from 'loopkeeper/transcript';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  readSession,
  recordTelemetry,
  sharedTokenCounter,
  whenIdle,
} from '../support/loop-harness.js';
import { loadTranscriptFixtures } from '../support/transcripts.js';

let tokens: TokenCounter;
let server: FakeOpenAIServer | undefined;

beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks up a word.',
  parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
  execute: ({ word }: { word: string }) => `definition of ${word}`,
});

function model(
  url: string,
  options: { stream?: boolean; maxRetries?: number; timeout?: number } = {},
) {
  return openAIChatModel({ baseURL: url, apiKey: 'test-key', model: 'gpt-test', ...options });
}

describe('createAgentLoop with openAIChatModel over HTTP', () => {
  it('runs a multi-step turn with parallel tool calls and logs every item', async () => {
    server = await startFakeOpenAIServer({
      replies: [
        {
          toolCalls: [
            { id: 'call_a', name: 'lookup', arguments: { word: 'loop' } },
            { id: 'call_b', name: 'lookup', arguments: { word: 'keeper' } },
          ],
        },
        { toolCalls: [{ id: 'call_c', name: 'lookup', arguments: { word: 'actor' } }] },
        { text: 'A loopkeeper keeps loops.' },
      ],
    });
    const store = new MemorySessionStore();
    const loop = createAgentLoop({
      model: model(server.url),
      tools: [lookup],
      store,
      tokens,
      instructions: 'Be brief.',
    });
    const telemetry = recordTelemetry(loop);
    loop.start();
    const finished = await runTurn(loop, 'What is a loopkeeper?');

    expect(finished.outcome).toBe('completed');
    expect(finished.steps).toBe(3);
    const kinds = loop.session.items.map((item) => item.kind);
    expect(kinds).toEqual([
      'user',
      'assistant',
      'toolResult',
      'toolResult',
      'assistant',
      'toolResult',
      'assistant',
    ]);
    expect(validateTranscript(loop.session.items)).toEqual([]);
    // The second request carried both parallel results, answered in call order.
    const second = server.requests[1]?.body?.messages as {
      role: string;
      tool_call_id?: string;
      content?: string;
    }[];
    expect(second[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(
      second.filter((message) => message.role === 'tool').map((message) => message.tool_call_id),
    ).toEqual(['call_a', 'call_b']);
    expect(server.requests[0]?.body?.tools).toHaveLength(1);
    const events = await readSession(store, loop.session.sessionId);
    expect(effectiveHistory(events)).toEqual(loop.session.items);
    expect(events.map((event) => event.type)).toContain('usage-reported');
    expect(telemetry.filter((event) => event.type === 'ToolCallFinished')).toHaveLength(3);
    loop.stop();
  });

  it('streams text deltas as InferenceDelta events', async () => {
    server = await startFakeOpenAIServer({
      replies: [{ text: 'streamed answer here', chunkSize: 4 }],
    });
    const loop = createAgentLoop({ model: model(server.url, { stream: true }), tokens });
    const telemetry = recordTelemetry(loop);
    loop.start();
    await runTurn(loop, 'Say something');
    const deltas = telemetry.flatMap((event) =>
      event.type === 'InferenceDelta' ? [event.delta] : [],
    );
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('streamed answer here');
    loop.stop();
  });

  it('retries 429 (honouring retry-after) and 500 inside the SDK and completes', async () => {
    server = await startFakeOpenAIServer({
      replies: [
        fakeFaults.rateLimited({ retryAfterSeconds: 0.01 }),
        fakeFaults.serverError(),
        { text: 'fine' },
      ],
    });
    const loop = createAgentLoop({ model: model(server.url, { maxRetries: 3 }), tokens });
    loop.start();
    const finished = await runTurn(loop, 'hello');
    expect(finished.outcome).toBe('completed');
    expect(server.requests).toHaveLength(3);
    loop.stop();
  });

  it('compacts and retries on a 400 context_length_exceeded', async () => {
    server = await startFakeOpenAIServer({
      replies: [
        { toolCalls: [{ id: 'call_big', name: 'big', arguments: {} }] },
        fakeFaults.contextOverflow(),
        { text: 'ok' },
      ],
    });
    const big = defineTool({
      name: 'big',
      description: 'Returns a lot of text.',
      parameters: { type: 'object' },
      execute: () => 'line of output\n'.repeat(3_000),
    });
    const compactor = createCompactor({
      trigger: tokenBudgetTrigger({ maxTokens: 100_000 }),
      structural: { pruneToolResults: { protectRecentTokens: 0, minSavingsTokens: 10 } },
    });
    const store = new MemorySessionStore();
    const loop = createAgentLoop({
      model: model(server.url),
      tools: [big],
      compactor,
      store,
      tokens,
    });
    const telemetry = recordTelemetry(loop);
    loop.start();
    const finished = await runTurn(loop, 'run big');
    expect(finished.outcome).toBe('completed');
    const started = telemetry.filter((event) => event.type === 'CompactionStarted');
    expect(started.map((event) => event.reason)).toEqual(['overflow']);
    const events = await readSession(store, loop.session.sessionId);
    const marker = events.find((event) => event.type === 'transcript-replaced');
    expect(marker).toMatchObject({ reason: 'overflow' });
    // The retried request no longer holds the big output.
    const retried = JSON.stringify(server.requests[2]?.body?.messages);
    expect(retried.length).toBeLessThan(
      JSON.stringify(server.requests[1]?.body?.messages).length / 4,
    );
    expect(validateTranscript(loop.session.items)).toEqual([]);
    loop.stop();
  });

  it('prunes the largest tool outputs first on a 413 and retries', async () => {
    server = await startFakeOpenAIServer({
      replies: [
        {
          toolCalls: [
            { id: 'call_small', name: 'sized', arguments: { size: 10 } },
            { id: 'call_large', name: 'sized', arguments: { size: 20_000 } },
          ],
        },
        fakeFaults.payloadTooLarge(),
        { text: 'ok' },
      ],
    });
    const sized = defineTool({
      name: 'sized',
      description: 'Returns text of a given size.',
      parameters: { type: 'object', properties: { size: { type: 'integer' } }, required: ['size'] },
      execute: ({ size }: { size: number }) => 'x '.repeat(size),
    });
    const compactor = createCompactor({ trigger: tokenBudgetTrigger({ maxTokens: 100_000 }) });
    const loop = createAgentLoop({ model: model(server.url), tools: [sized], compactor, tokens });
    const telemetry = recordTelemetry(loop);
    loop.start();
    const finished = await runTurn(loop, 'go');
    expect(finished.outcome).toBe('completed');
    expect(telemetry.find((event) => event.type === 'CompactionStarted')).toMatchObject({
      reason: 'payload_too_large',
    });
    const results = loop.session.items.filter((item) => item.kind === 'toolResult');
    const large = results.find((item) => item.callId === 'call_large');
    const small = results.find((item) => item.callId === 'call_small');
    expect(large?.content.length).toBeLessThan(1_000);
    expect(small?.content).toBe('x '.repeat(10));
    loop.stop();
  });

  it('falls back to the emergency prune when the summarizer fails, and the session goes on', async () => {
    const failing: CompactionBackend = {
      name: 'broken',
      maxInputTokens: 100_000,
      summarize: async () => {
        throw new Error('summarizer is down');
      },
    };
    let call = 0;
    server = await startFakeOpenAIServer({
      handler: () => {
        call += 1;
        return { text: `answer ${call} ${'words '.repeat(300)}` };
      },
    });
    const compactor = createCompactor({
      trigger: tokenBudgetTrigger({ maxTokens: 1_200, targetRatio: 0.5 }),
      backend: failing,
      structural: { pruneToolResults: { protectRecentTokens: 0, minSavingsTokens: 1 } },
      summary: { keepRecentTokens: 200 },
    });
    const store = new MemorySessionStore();
    const loop = createAgentLoop({ model: model(server.url), compactor, store, tokens });
    const telemetry = recordTelemetry(loop);
    loop.start();
    for (let turn = 0; turn < 5; turn += 1) {
      const finished = await runTurn(loop, `question ${turn}`);
      expect(finished.outcome).toBe('completed');
    }
    expect(telemetry.some((event) => event.type === 'CompactionFailed')).toBe(true);
    expect(telemetry.some((event) => event.type === 'EmergencyPruneApplied' && event.fits)).toBe(
      true,
    );
    const events = await readSession(store, loop.session.sessionId);
    const markers = events.filter((event) => event.type === 'transcript-replaced');
    expect(markers.length).toBeGreaterThan(0);
    // No marker records a summary: every failed summary wrote nothing.
    expect(
      markers.every((marker) => marker.type === 'transcript-replaced' && marker.tier !== 'summary'),
    ).toBe(true);
    expect(validateTranscript(loop.session.items)).toEqual([]);
    loop.stop();
  });

  it('fails the run with MutatorError when a mutator returns a broken transcript, and logs nothing of it', async () => {
    server = await startFakeOpenAIServer({
      replies: [
        { toolCalls: [{ id: 'call_1', name: 'lookup', arguments: { word: 'x' } }] },
        { text: 'done' },
      ],
    });
    const breaker: LoopMutator = {
      name: 'breaker',
      points: ['AfterToolResult'],
      // Drops every tool result: the calls are left unanswered.
      mutate: async ({ transcript }) => ({
        dirty: true,
        transcript: transcript.filter((item) => item.kind !== 'toolResult'),
        metadata: {},
      }),
    };
    const store = new MemorySessionStore();
    const loop = createAgentLoop({
      model: model(server.url),
      tools: [lookup],
      mutators: [breaker],
      store,
      tokens,
    });
    const telemetry = recordTelemetry(loop);
    loop.start();
    const finished = await runTurn(loop, 'hi');
    expect(finished.outcome).toBe('failed');
    expect(finished.error?.name).toBe('MutatorError');
    expect(server.requests).toHaveLength(1);
    const events = await readSession(store, loop.session.sessionId);
    expect(events.some((event) => event.type === 'transcript-replaced')).toBe(false);
    expect(loop.getSnapshot().context.lastError?.name).toBe('MutatorError');
    expect(telemetry.filter((event) => event.type === 'MutationStarted')).toHaveLength(1);
    expect(telemetry.filter((event) => event.type === 'MutationFinished')).toHaveLength(1);
    // The session keeps accepting messages.
    const next = await runTurn(loop, 'again');
    expect(next.outcome).toBe('completed');
    loop.stop();
  });

  it('fails with MutatorError when the compactor returns a broken transcript', async () => {
    server = await startFakeOpenAIServer({ replies: [{ text: 'never sent' }] });
    const base = createCompactor({ trigger: tokenBudgetTrigger({ maxTokens: 1 }) });
    const brokenCompactor = {
      ...base,
      compact: async (input: Parameters<typeof base.compact>[0]) => ({
        transcript: [
          ...input.transcript,
          {
            kind: 'toolResult' as const,
            id: createItemId(),
            callId: 'nope',
            toolName: 'x',
            content: '',
            isError: false,
          },
        ],
        tier: 'structural' as const,
        strategies: ['broken'],
        tokensBefore: 10,
        tokensAfter: 5,
        effective: true,
        budget: { maxTokens: 100, targetTokens: 60 },
        metadata: {},
      }),
    };
    const store = new MemorySessionStore();
    const loop = createAgentLoop({
      model: model(server.url),
      compactor: brokenCompactor,
      store,
      tokens,
    });
    loop.start();
    const finished = await runTurn(loop, 'hello there');
    expect(finished.error?.name).toBe('MutatorError');
    expect(server.requests).toHaveLength(0);
    const events = await readSession(store, loop.session.sessionId);
    expect(events.some((event) => event.type === 'transcript-replaced')).toBe(false);
    loop.stop();
  });

  it('ends with ContextOverflowError after exactly the cap when the trigger can never be satisfied', async () => {
    server = await startFakeOpenAIServer({ replies: [{ text: 'never sent' }] });
    for (const cap of [0, 1, 3]) {
      const compactor = createCompactor({ trigger: tokenBudgetTrigger({ maxTokens: 1 }) });
      const loop = createAgentLoop({
        model: model(server.url),
        compactor,
        tokens,
        maxConsecutiveCompactions: cap,
      });
      const telemetry = recordTelemetry(loop);
      loop.start();
      const finished = await runTurn(loop, 'a message that can never fit in one token');
      expect(finished.outcome).toBe('failed');
      expect(finished.error?.name).toBe('ContextOverflowError');
      const compactions = telemetry.filter((event) => event.type === 'CompactionStarted').length;
      const emergencies = telemetry.filter(
        (event) => event.type === 'EmergencyPruneApplied',
      ).length;
      expect(compactions).toBeLessThanOrEqual(cap);
      expect(compactions + emergencies).toBeLessThanOrEqual(cap + 1);
      loop.stop();
    }
    expect(server.requests).toHaveLength(0);
  });

  it('aborts during inference: valid transcript and RunFinished with outcome aborted', async () => {
    server = await startFakeOpenAIServer({ replies: [fakeFaults.hang()] });
    const store = new MemorySessionStore();
    const loop = createAgentLoop({ model: model(server.url), store, tokens });
    const telemetry = recordTelemetry(loop);
    loop.start();
    const finished = new Promise((resolve) => loop.on('RunFinished', resolve));
    loop.on('InferenceStarted', () => setTimeout(() => loop.send({ type: 'abort' }), 20));
    loop.send({ type: 'user.message', content: 'hang please' });
    await expect(finished).resolves.toMatchObject({ outcome: 'aborted' });
    await whenIdle(loop);
    expect(validateTranscript(loop.session.items)).toEqual([]);
    const events = await readSession(store, loop.session.sessionId);
    expect(events.at(-1)).toMatchObject({ type: 'run-finished', outcome: 'aborted' });
    expect(telemetry.at(-1)?.type).toBe('RunFinished');
    loop.stop();
  });

  it('aborts during a slow tool: a call that finished keeps its result, open calls get synthetic aborted results', async () => {
    server = await startFakeOpenAIServer({
      replies: [
        {
          toolCalls: [
            { id: 'call_fast', name: 'lookup', arguments: { word: 'a' } },
            { id: 'call_slow', name: 'slow', arguments: {} },
          ],
        },
        { text: 'after abort' },
      ],
    });
    const slow = defineTool({
      name: 'slow',
      description: 'Never finishes on its own.',
      parameters: { type: 'object' },
      execute: (_arguments, { signal }) =>
        new Promise((_, reject) =>
          signal.addEventListener('abort', () => reject(new Error('stopped'))),
        ),
    });
    const store = new MemorySessionStore();
    const loop = createAgentLoop({
      model: model(server.url),
      tools: [lookup, slow],
      store,
      tokens,
    });
    loop.start();
    loop.on('ToolCallStarted', (event) => {
      if (event.toolName === 'slow') setTimeout(() => loop.send({ type: 'abort' }), 20);
    });
    const finished = await runTurn(loop, 'start');
    expect(finished.outcome).toBe('aborted');
    await whenIdle(loop);
    expect(validateTranscript(loop.session.items)).toEqual([]);
    const results = loop.session.items.filter((item) => item.kind === 'toolResult');
    expect(results).toHaveLength(2);
    // Each result is logged as its call finishes, so the fast call's real answer survives.
    const byCall = new Map(
      results.map((result) => [result.kind === 'toolResult' ? result.callId : '', result]),
    );
    expect(byCall.get('call_fast')).toMatchObject({ isError: false });
    const slowResult = byCall.get('call_slow');
    expect(
      slowResult?.kind === 'toolResult' && slowResult.isError && /abort/i.test(slowResult.content),
    ).toBe(true);
    // The session keeps going after an abort.
    const next = await runTurn(loop, 'continue');
    expect(next.outcome).toBe('completed');
    loop.stop();
  });

  it('replays the real transcripts through a small window: compaction fires several times and every turn completes', async () => {
    const fixtures = loadTranscriptFixtures();
    const session = recordedSession({ conversations: fixtures.map((fixture) => fixture.messages) });
    let next = 0;
    server = await startFakeOpenAIServer({
      handler: () => {
        const answer = session.answers[next];
        next += 1;
        if (answer === undefined) return fakeFaults.serverError({ status: 400 });
        return {
          ...(answer.text === undefined ? {} : { text: answer.text }),
          ...(answer.toolCalls === undefined
            ? {}
            : {
                toolCalls: answer.toolCalls.map((call) => ({
                  ...(call.id === undefined ? {} : { id: call.id }),
                  name: call.name,
                  arguments: call.arguments,
                })),
              }),
        };
      },
    });
    const compactor = createCompactor({
      trigger: contextWindowTrigger({ window: 16_384, outputReserve: 2_048 }),
      backend: extractiveSummarizer(),
      structural: { pruneToolResults: { protectRecentTokens: 2_000, minSavingsTokens: 200 } },
      summary: { keepRecentTokens: 2_000 },
    });
    const store = new MemorySessionStore();
    const loop = createAgentLoop({
      model: model(server.url),
      tools: session.tools,
      compactor,
      store,
      tokens,
      maxStepsPerRun: 200,
    });
    const telemetry = recordTelemetry(loop);
    loop.start();
    for (const turn of session.turns) {
      const finished = await runTurn(loop, turn.content);
      expect(finished.error).toBeNull();
      expect(finished.outcome).toBe('completed');
    }
    expect(next).toBe(session.answers.length);
    const compactions = telemetry.filter((event) => event.type === 'CompactionFinished');
    expect(compactions.length).toBeGreaterThanOrEqual(3);
    const events = await readSession(store, loop.session.sessionId);
    const history = effectiveHistory(events);
    expect(history).toEqual(loop.session.items);
    expect(validateTranscript(history)).toEqual([]);
    expect(tokens.count(history)).toBeLessThan(16_384);
    // Nothing is deleted: every item ever appended is still in the log.
    const appended = events.flatMap((event) =>
      event.type === 'items-appended' ? event.items : [],
    );
    const results = appended.filter((item) => item.kind === 'toolResult');
    expect(results).toHaveLength(session.toolCalls);
    // Every call got its own recorded output back (call ids are scoped per recording).
    expect(results.filter((item) => item.content.includes('no recorded output'))).toEqual([]);
    loop.stop();
  }, 60_000);
});
