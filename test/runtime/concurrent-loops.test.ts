import { createAgentLoop, MemorySessionStore, runTurn } from 'loopkeeper';
import type { NewSessionEvent } from 'loopkeeper/log';
import { ScriptedModel } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedTokenCounter } from '../support/loop-harness.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

describe('createAgentLoop with a second loop on the same session', () => {
  it('re-reads the log after a ConcurrencyError and retries once, in both loops', async () => {
    const store = new MemorySessionStore();
    const seen: number[] = [];
    const model = new ScriptedModel({
      script: (request) => {
        seen.push(request.transcript.length);
        return { text: `seen ${request.transcript.length}` };
      },
    });
    const first = createAgentLoop({ model, store, sessionId: 'shared', tokens });
    const second = createAgentLoop({ model, store, sessionId: 'shared', tokens });
    first.start();
    second.start();
    expect((await runTurn(first, 'One.')).outcome).toBe('completed');
    expect((await runTurn(second, 'Two.')).outcome).toBe('completed');
    for (let turn = 3; turn <= 6; turn++) {
      const loop = turn % 2 === 1 ? first : second;
      expect((await runTurn(loop, `Turn ${turn}.`)).outcome).toBe('completed');
    }
    // Each request saw every earlier turn of both loops: 2 items a turn, plus the new message.
    expect(seen).toEqual([1, 3, 5, 7, 9, 11]);
    const events: NewSessionEvent[] = [];
    for await (const event of store.read('shared')) events.push(event);
    expect(events.filter((event) => event.type === 'run-finished')).toHaveLength(6);
  });
});
