import {
  createAgentLoop,
  type Item,
  MemorySessionStore,
  ProtocolError,
  runTurn,
  validateTranscript,
} from 'loopkeeper';
import type { Compactor } from 'loopkeeper/compaction';
import { ScriptedModel } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { faultyBackend, summarizingCompactor } from '../faults/summarizer-faults.js';
import { readSession, sharedTokenCounter } from '../support/loop-harness.js';

/**
 * Guards that nothing else in the suite defends (issue 30, item 11): each test here fails when
 * its guard is removed (see docs/reliability.md, "Guards and the tests that defend them").
 */
let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

const orphan: Item = {
  kind: 'toolResult',
  id: 'r-orphan',
  callId: 'call_nobody_made',
  toolName: 'ls',
  content: 'x',
  isError: false,
};

describe('LoopSession per-append protocol check', () => {
  for (const [name, items, kind] of [
    ['an orphan tool result', [orphan], 'orphan_result'],
    ['a malformed item (content 42)', [{ kind: 'user', id: 'u9', content: 42 }], 'invalid_item'],
  ] as const) {
    it(`refuses ${name} before anything is written`, async () => {
      const store = new MemorySessionStore();
      const loop = createAgentLoop({ model: new ScriptedModel({ turns: [] }), store, tokens });
      const { session } = loop;
      session.beginRun('r1');
      const error = await session
        .appendForRun('r1', [
          { type: 'items-appended', runId: 'r1', items: items as unknown as Item[] },
        ])
        .then(
          () => undefined,
          (caught: unknown) => caught,
        );
      expect(ProtocolError.isInstance(error), String(error)).toBe(true);
      expect((error as ProtocolError).problems[0]?.kind).toBe(kind);
      expect(await readSession(store, session.sessionId)).toEqual([]);
    });
  }
});

describe('emergency prune output validation', () => {
  it('an emergency prune that returns a broken transcript fails the run; nothing broken is logged or sent', async () => {
    const inner = summarizingCompactor(faultyBackend('error'));
    const compactor: Compactor = {
      ...inner,
      evaluate: (input) => inner.evaluate(input),
      compact: (input) => inner.compact(input),
      mutate: (input) => inner.mutate(input),
      emergencyPrune: async (input) => {
        const outcome = await inner.emergencyPrune(input);
        return { ...outcome, transcript: [...outcome.transcript, orphan] };
      },
    };
    const store = new MemorySessionStore();
    const model = new ScriptedModel({
      tokens,
      turns: [{ text: 'long answer '.repeat(1_500) }, { text: 'never sent' }],
    });
    const loop = createAgentLoop({ model, store, compactor, tokens });
    loop.start();
    const result = await runTurn(loop, 'Explain at length.');
    expect(result.outcome).toBe('failed');
    const events = await readSession(store, loop.session.sessionId);
    expect(events.filter((event) => event.type === 'transcript-replaced')).toEqual([]);
    for (const request of model.requests)
      expect(validateTranscript(request.transcript)).toEqual([]);
    expect(validateTranscript(loop.session.items)).toEqual([]);
    loop.stop();
  });
});
