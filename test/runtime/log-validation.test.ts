import {
  createAgentLoop,
  type Item,
  MemorySessionStore,
  openAgentLoop,
  ProtocolError,
  runTurn,
  validateTranscript,
} from 'loopkeeper';
import { applyCompaction } from 'loopkeeper/compaction';
import { ScriptedModel } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedTokenCounter } from '../support/loop-harness.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

const user: Item = { kind: 'user', id: 'u1', content: 'List the files.' };
const call: Item = {
  kind: 'assistant',
  id: 'a1',
  toolCalls: [{ id: 'call_1', name: 'ls', arguments: '{}' }],
};
const result: Item = {
  kind: 'toolResult',
  id: 'r1',
  callId: 'call_1',
  toolName: 'ls',
  content: 'a.txt',
  isError: false,
};
const answer: Item = { kind: 'assistant', id: 'a2', text: 'One file: a.txt.' };
const orphan: Item = { ...result, id: 'r-orphan', callId: 'call_nobody_made' };
const duplicate: Item = { ...result, id: 'r-duplicate' };
const malformed = { kind: 'system', id: 's1', content: 42 } as unknown as Item;

/** A session with one complete run, then `extra` appended straight to the store. */
async function sessionWith(extra: readonly Item[]) {
  const store = new MemorySessionStore();
  await store.append('s', [
    { type: 'run-started', runId: 'r1' },
    { type: 'items-appended', runId: 'r1', items: [user, call] },
    { type: 'items-appended', runId: 'r1', items: [result] },
    { type: 'items-appended', runId: 'r1', items: [answer] },
    { type: 'run-finished', runId: 'r1', outcome: 'completed', steps: 2 },
  ]);
  const [bad] = await store.append('s', [{ type: 'items-appended', items: extra }]);
  return { store, badSeq: bad?.seq ?? -1 };
}

async function refusal(promise: Promise<unknown>): Promise<ProtocolError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!ProtocolError.isInstance(error))
    throw new Error(`expected a ProtocolError, got ${String(error)}`);
  return error;
}

describe('openAgentLoop on a log written through the low-level APIs', () => {
  for (const [name, extra, kind] of [
    ['an orphan tool result', [orphan], 'orphan_result'],
    ['a duplicate tool result', [duplicate], 'duplicate_result'],
    ['a second orphan after a user message', [{ ...user, id: 'u2' }, orphan], 'orphan_result'],
    ['a reused tool call id', [{ ...call, id: 'a3' }], 'duplicate_call_id'],
    [
      'an item id already used by an earlier event',
      [{ ...user, content: 'Again.' }],
      'duplicate_item_id',
    ],
    [
      'an item id repeated within one event',
      [
        { ...user, id: 'u2' },
        { ...answer, id: 'u2' },
      ],
      'duplicate_item_id',
    ],
    ['a malformed item (content 42, kind system)', [malformed], 'invalid_item'],
    [
      'a user item with content 42',
      [{ ...user, id: 'u2', content: 42 } as unknown as Item],
      'invalid_item',
    ],
  ] as const) {
    it(`refuses ${name} with a ProtocolError naming the event's seq`, async () => {
      const { store, badSeq } = await sessionWith(extra);
      const model = new ScriptedModel({ turns: [{ text: 'never asked' }] });
      const error = await refusal(openAgentLoop({ model, store, sessionId: 's', tokens }));
      expect(error.seq).toBe(badSeq);
      expect(error.message).toContain(`event seq ${badSeq} (items-appended)`);
      expect(error.problems[0]?.kind).toBe(kind);
      expect(model.requests).toHaveLength(0);
    });
  }

  it('fails the first run of a lazily opened loop with protocol_invalid and sends nothing', async () => {
    const { store, badSeq } = await sessionWith([orphan]);
    const model = new ScriptedModel({ turns: [{ text: 'never asked' }] });
    const loop = createAgentLoop({ model, store, sessionId: 's', tokens });
    loop.start();
    const finished = await runTurn(loop, 'Go on.');
    expect(finished).toMatchObject({ outcome: 'failed', error: { code: 'protocol_invalid' } });
    expect(finished.error?.message).toContain(`event seq ${badSeq}`);
    expect(model.requests).toHaveLength(0);
  });

  for (const [name, extra, kind] of [
    ['an orphan result', [orphan], 'orphan_result'],
    ['an item id twice', [answer], 'duplicate_item_id'],
    ['a malformed item', [malformed], 'invalid_item'],
  ] as const) {
    it(`refuses a replacement from applyCompaction that holds ${name}, naming the marker`, async () => {
      const { store } = await sessionWith([]);
      const previous = [user, call, result, answer];
      const marker = await applyCompaction({
        store,
        sessionId: 's',
        expectedSeq: 6,
        previous,
        outcome: {
          transcript: [...previous, ...extra],
          tier: 'structural',
          strategies: ['broken'],
          tokensBefore: 100,
          tokensAfter: 90,
        },
        reason: 'manual',
      });
      const model = new ScriptedModel({ turns: [{ text: 'never asked' }] });
      const error = await refusal(openAgentLoop({ model, store, sessionId: 's', tokens }));
      expect(error.seq).toBe(marker.seq);
      expect(error.message).toContain(`event seq ${marker.seq} (transcript-replaced)`);
      expect(error.problems[0]?.kind).toBe(kind);
      expect(model.requests).toHaveLength(0);
    });
  }

  it('refuses a duplicate item id appended behind a live loop, naming its seq', async () => {
    const { store } = await sessionWith([]);
    const model = new ScriptedModel({ script: () => ({ text: 'fine' }) });
    const loop = await openAgentLoop({ model, store, sessionId: 's', tokens });
    loop.start();
    expect((await runTurn(loop, 'First.')).outcome).toBe('completed');
    const [bad] = await store.append('s', [{ type: 'items-appended', items: [{ ...answer }] }]);
    const finished = await runTurn(loop, 'Second.');
    expect(finished).toMatchObject({ outcome: 'failed', error: { code: 'protocol_invalid' } });
    expect(finished.error?.message).toContain(`event seq ${bad?.seq} (items-appended)`);
    expect(finished.error?.message).toContain('duplicate_item_id');
    expect(model.requests).toHaveLength(1);
  });

  it('refuses history appended behind a live loop before its next request', async () => {
    const { store } = await sessionWith([]);
    const model = new ScriptedModel({ script: () => ({ text: 'fine' }) });
    const loop = await openAgentLoop({ model, store, sessionId: 's', tokens });
    loop.start();
    expect((await runTurn(loop, 'First.')).outcome).toBe('completed');
    const [bad] = await store.append('s', [{ type: 'items-appended', items: [orphan] }]);
    const finished = await runTurn(loop, 'Second.');
    expect(finished).toMatchObject({ outcome: 'failed', error: { code: 'protocol_invalid' } });
    expect(finished.error?.message).toContain(`event seq ${bad?.seq}`);
    expect(model.requests).toHaveLength(1);
    for (const request of model.requests)
      expect(validateTranscript(request.transcript)).toEqual([]);
  });
});
