import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createAgentLoop, createAgentLoopLogic, MemorySessionStore, runTurn } from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { sharedTokenCounter } from '../support/loop-harness.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('createAgentLoop machine sharing', () => {
  it('gives every loop the same machine definition and actors, each reaching its own session', async () => {
    const store = new MemorySessionStore();
    const loops = ['first', 'second'].map((name) =>
      createAgentLoop({
        model: new ScriptedModel({ tokens, turns: [{ text: `answer of ${name}` }] }),
        tokens,
        store,
        sessionId: name,
      }),
    );
    // One logic object for every loop: what differs is the input each actor was created with.
    const [first, second] = loops.map((loop) => loop.logic);
    expect(first).toBe(second);

    for (const loop of loops) loop.start();
    const results = await Promise.all(loops.map((loop) => runTurn(loop, 'hello')));
    expect(results.map((result) => result.text)).toEqual(['answer of first', 'answer of second']);
    expect(loops.map((loop) => loop.session.items.length)).toEqual([2, 2]);
    for (const loop of loops) loop.stop();
  });

  it('keeps the loop bound after provide() on its logic', async () => {
    const { logic, input, session } = createAgentLoopLogic({
      model: new ScriptedModel({ tokens, turns: [{ text: 'still bound' }] }),
      tokens,
    });
    const emitted: string[] = [];
    const actor = createActor(
      logic.provide({ actions: { emitRunStarted: () => emitted.push('replaced') } }),
      { input },
    ).start();
    const finished = new Promise((resolve) => actor.on('RunFinished', resolve));
    actor.send({ type: 'user.message', content: 'hi' });
    await expect(finished).resolves.toMatchObject({ outcome: 'completed' });
    expect(emitted).toEqual(['replaced']);
    expect(session.items.map((item) => item.kind)).toEqual(['user', 'assistant']);
    actor.stop();
  });

  it('releases a stopped loop: nothing process-wide keeps its session or model', async () => {
    const references = await (async () => {
      const model = new ScriptedModel({ tokens, turns: [{ text: 'bye' }] });
      const loop = createAgentLoop({ model, tokens });
      loop.start();
      await runTurn(loop, 'hello');
      loop.stop();
      return { session: new WeakRef(loop.session), model: new WeakRef(model) };
    })();
    for (let round = 0; round < 5 && references.session.deref() !== undefined; round += 1) {
      await settle();
      collectGarbage();
    }
    expect(references.session.deref()).toBeUndefined();
    expect(references.model.deref()).toBeUndefined();
  });
});
