import {
  createAgentLoop,
  createCompactor,
  defineTool,
  MemorySessionStore,
  runTurn,
  tokenBudgetTrigger,
  validateTranscript,
} from 'loopkeeper';
import { afterEach, describe, expect, it } from 'vitest';
import {
  nextEvent,
  readSession,
  recordTelemetry,
  sharedTokenCounter,
} from '../../support/loop-harness.js';
import type { ContractFake, ContractHarness, ContractReply } from './contract-harness.js';

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks up a word.',
  parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
  execute: ({ word }: { word: string }) => `definition of ${word}`,
});

const sized = defineTool({
  name: 'sized',
  description: 'Returns text of a given size.',
  parameters: { type: 'object', properties: { size: { type: 'integer' } }, required: ['size'] },
  execute: ({ size }: { size: number }) => 'line of output\n'.repeat(size),
});

/**
 * The contract every model adapter passes unchanged, through the loop: text and tool-call turns,
 * parallel calls, aborts mid-request and mid-stream, retries with capped waits, a context
 * overflow and a 413 leading to reactive compaction, usage mapping and typed `ModelError` codes.
 * Register an adapter by giving its `ContractHarness`.
 */
export function describeAdapterContract(harness: ContractHarness): void {
  describe(`${harness.name} (adapter contract)`, () => {
    const fakes: ContractFake[] = [];
    afterEach(async () => {
      await Promise.all(fakes.splice(0).map((fake) => fake.close()));
    });

    async function loopWith(
      replies: readonly ContractReply[],
      { stream = false, maxRetries = 2, maxRetryWaitMs = 1_000, compact = false } = {},
    ) {
      const fake = await harness.start({ replies, stream, maxRetries, maxRetryWaitMs });
      fakes.push(fake);
      const store = new MemorySessionStore();
      const loop = createAgentLoop({
        model: fake.model,
        tools: [lookup, sized],
        store,
        tokens: await sharedTokenCounter(),
        instructions: 'Be brief.',
        ...(compact && {
          compactor: createCompactor({
            trigger: tokenBudgetTrigger({ maxTokens: 100_000 }),
            structural: { pruneToolResults: { protectRecentTokens: 0, minSavingsTokens: 10 } },
          }),
        }),
      });
      const telemetry = recordTelemetry(loop);
      loop.start();
      return { fake, loop, store, telemetry };
    }

    for (const stream of [false, true]) {
      it(`answers a text turn and maps its usage (${stream ? 'streaming' : 'one response'})`, async () => {
        const usage = { promptTokens: 321, completionTokens: 12, cachedTokens: 256 };
        const { loop, store } = await loopWith([{ text: 'Hello there.', usage }], { stream });
        const turn = await runTurn(loop, 'Hi');
        expect(turn.outcome).toBe('completed');
        expect(turn.text).toBe('Hello there.');
        const events = await readSession(store, loop.session.sessionId);
        expect(events.find((event) => event.type === 'usage-reported')).toMatchObject(usage);
        loop.stop();
      });
    }

    it('runs parallel tool calls and sends every result back in the next request', async () => {
      const { fake, loop } = await loopWith([
        {
          toolCalls: [
            { id: 'call_a', name: 'lookup', arguments: { word: 'loop' } },
            { id: 'call_b', name: 'lookup', arguments: { word: 'keeper' } },
          ],
        },
        { text: 'Both looked up.' },
      ]);
      const turn = await runTurn(loop, 'Define both');
      expect(turn.outcome).toBe('completed');
      expect(turn.steps).toBe(2);
      expect(fake.requests()).toBe(2);
      const results = loop.session.items.filter((item) => item.kind === 'toolResult');
      expect(results.map((item) => [item.callId, item.content])).toEqual([
        ['call_a', 'definition of loop'],
        ['call_b', 'definition of keeper'],
      ]);
      expect(validateTranscript(loop.session.items)).toEqual([]);
      loop.stop();
    });

    it('aborts mid-request: the run ends aborted and the session stays valid', async () => {
      const { loop } = await loopWith([{ fault: 'hang' }]);
      const started = nextEvent(loop, 'InferenceStarted');
      const turn = runTurn(loop, 'Wait forever');
      await started;
      loop.send({ type: 'abort' });
      expect((await turn).outcome).toBe('aborted');
      expect(validateTranscript(loop.session.items)).toEqual([]);
      loop.stop();
    });

    it('aborts mid-stream after the first text delta', async () => {
      const { loop } = await loopWith(
        [{ text: 'a long streamed answer '.repeat(20), slowStream: true }],
        {
          stream: true,
        },
      );
      const delta = nextEvent(loop, 'InferenceDelta');
      const turn = runTurn(loop, 'Stream slowly');
      await delta;
      loop.send({ type: 'abort' });
      const finished = await turn;
      expect(finished.outcome).toBe('aborted');
      expect(loop.session.items.filter((item) => item.kind === 'assistant')).toEqual([]);
      loop.stop();
    });

    it(
      harness.retries
        ? 'retries a rate limit and a server error with short waits, then answers'
        : 'hands a rate limit to the loop as model_rate_limited (it does not retry)',
      async () => {
        const { fake, loop } = await loopWith(
          [
            { fault: 'rate_limited', retryAfterSeconds: 0.01 },
            { fault: 'server_error' },
            { text: 'Finally.' },
          ],
          { maxRetries: 3 },
        );
        const turn = await runTurn(loop, 'Try hard');
        if (harness.retries) {
          expect(turn.outcome).toBe('completed');
          expect(turn.text).toBe('Finally.');
          expect(fake.requests()).toBe(3);
        } else {
          expect(turn.outcome).toBe('failed');
          expect(turn.error?.code).toBe('model_rate_limited');
          expect(fake.requests()).toBe(1);
        }
        loop.stop();
      },
    );

    it('does not wait out a retry-after longer than maxRetryWaitMs: it fails as model_rate_limited', async () => {
      const { fake, loop } = await loopWith(
        [{ fault: 'rate_limited', retryAfterSeconds: 3_600 }, { text: 'never' }],
        {
          maxRetries: 3,
          maxRetryWaitMs: 1_000,
        },
      );
      const turn = await runTurn(loop, 'Try');
      expect(turn.outcome).toBe('failed');
      expect(turn.error?.code).toBe('model_rate_limited');
      expect(fake.requests()).toBe(1);
      loop.stop();
    });

    it('compacts reactively on a context overflow and retries with a smaller request', async () => {
      const { fake, loop, telemetry } = await loopWith(
        [
          { toolCalls: [{ id: 'call_big', name: 'sized', arguments: { size: 3_000 } }] },
          { fault: 'overflow' },
          { text: 'ok' },
        ],
        { compact: true },
      );
      const turn = await runTurn(loop, 'run big');
      expect(turn.outcome).toBe('completed');
      const started = telemetry.filter((event) => event.type === 'CompactionStarted');
      expect(started.map((event) => event.reason)).toEqual(['overflow']);
      expect(fake.requestBytes(2)).toBeLessThan(fake.requestBytes(1) / 4);
      expect(validateTranscript(loop.session.items)).toEqual([]);
      loop.stop();
    });

    it('prunes the largest tool output on a 413 and retries', async () => {
      const { loop, telemetry } = await loopWith(
        [
          {
            toolCalls: [
              { id: 'call_small', name: 'sized', arguments: { size: 2 } },
              { id: 'call_large', name: 'sized', arguments: { size: 3_000 } },
            ],
          },
          { fault: 'payload_too_large' },
          { text: 'ok' },
        ],
        { compact: true },
      );
      const turn = await runTurn(loop, 'go');
      expect(turn.outcome).toBe('completed');
      expect(telemetry.find((event) => event.type === 'CompactionStarted')).toMatchObject({
        reason: 'payload_too_large',
      });
      const results = loop.session.items.filter((item) => item.kind === 'toolResult');
      expect(results.find((item) => item.callId === 'call_large')?.content.length).toBeLessThan(
        1_000,
      );
      expect(results.find((item) => item.callId === 'call_small')?.content).toBe(
        'line of output\n'.repeat(2),
      );
      loop.stop();
    });

    for (const [fault, name, code] of [
      ['unauthorized', 'ModelError', 'model_auth'],
      ['bad_request', 'ModelError', 'model_bad_request'],
      ['server_error', 'ModelError', 'model_server'],
      // With no compactor to make room, the loop turns the provider's refusal into its own error.
      ['overflow', 'ContextOverflowError', 'context_overflow'],
    ] as const) {
      it(`fails a run with the typed code ${code} for ${fault}`, async () => {
        const { loop } = await loopWith([{ fault }], { maxRetries: 0 });
        const turn = await runTurn(loop, 'Go');
        expect(turn.outcome).toBe('failed');
        expect(turn.error).toMatchObject({ name, code });
        loop.stop();
      });
    }
  });
}
