import {
  createAgentLoop,
  MemorySessionStore,
  runTurn,
  type SessionEvent,
  validateTranscript,
} from 'loopkeeper';
import type { ReadOptions } from 'loopkeeper/log';
import { ScriptedModel } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedTokenCounter } from '../support/loop-harness.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

/** A store whose first full read fails after two events, as a flaky disk or network would. */
class FirstReadFailsStore extends MemorySessionStore {
  failuresLeft = 1;

  override read(sessionId: string, options?: ReadOptions): AsyncIterable<SessionEvent> {
    const events = super.read(sessionId, options);
    if (this.failuresLeft === 0 || options?.fromSeq !== undefined) return events;
    this.failuresLeft -= 1;
    return (async function* () {
      let yielded = 0;
      for await (const event of events) {
        if (yielded === 2) throw new Error('EIO: i/o error, read');
        yield event;
        yielded += 1;
      }
    })();
  }
}

/** One completed run (a question and its answer), then a store that fails its next read once. */
async function storeWithOneRun(): Promise<FirstReadFailsStore> {
  const store = new FirstReadFailsStore();
  await store.append('s', [
    { type: 'run-started', runId: 'r1' },
    { type: 'items-appended', runId: 'r1', items: [{ kind: 'user', id: 'u1', content: 'Hi.' }] },
    {
      type: 'items-appended',
      runId: 'r1',
      items: [{ kind: 'assistant', id: 'a1', text: 'Hello.' }],
    },
    { type: 'run-finished', runId: 'r1', outcome: 'completed', steps: 1 },
  ]);
  return store;
}

describe('LoopSession.open after a failed first read', () => {
  it('reads the log afresh on the next open instead of keeping the rejection', async () => {
    const store = await storeWithOneRun();
    const loop = createAgentLoop({
      model: new ScriptedModel({ turns: [] }),
      store,
      sessionId: 's',
      tokens,
    });
    await expect(loop.session.open()).rejects.toThrow('EIO');
    await loop.session.open();
    expect(loop.session.items.map((item) => item.id)).toEqual(['u1', 'a1']);
    expect(loop.session.lastSeq).toBe(4);
    expect(loop.session.runs).toBe(1);
  });

  it('fails only the first run with a typed error; the next run completes on the whole history', async () => {
    const store = await storeWithOneRun();
    const model = new ScriptedModel({ script: () => ({ text: 'Still here.' }) });
    const loop = createAgentLoop({ model, store, sessionId: 's', tokens });
    loop.start();
    const failed = await runTurn(loop, 'Are you there?');
    expect(failed).toMatchObject({ outcome: 'failed', error: { name: 'StoreError' } });
    expect(failed.error?.message).toContain('EIO');
    const next = await runTurn(loop, 'Are you there now?');
    loop.stop();
    expect(next.outcome).toBe('completed');
    expect(model.requests).toHaveLength(1);
    const sent = model.requests[0]?.transcript ?? [];
    expect(validateTranscript(sent)).toEqual([]);
    // The earlier run once, then this one: nothing the failed read had taken in is doubled.
    expect(loop.session.items.map((item) => item.kind)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(loop.session.items.slice(0, 2).map((item) => item.id)).toEqual(['u1', 'a1']);
    expect(loop.session.runs).toBe(2);
  });
});
