import { createAgentLoop, createAgentLoopLogic, runTurn } from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { sharedTokenCounter } from '../support/loop-harness.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

describe('getPersistedSnapshot of a loop', () => {
  it('is small JSON without the transcript, and restores an idle loop that keeps working', async () => {
    const secret = 'a long user message that must not be copied into the machine context';
    const loop = createAgentLoop({
      model: new ScriptedModel({ tokens, turns: [{ text: 'first answer' }] }),
      tokens,
      sessionId: 'persisted',
    });
    loop.start();
    await runTurn(loop, secret);
    const persisted = JSON.parse(JSON.stringify(loop.getPersistedSnapshot()));
    loop.stop();

    expect(persisted.value).toBe('idle');
    expect(persisted.context).toMatchObject({
      sessionId: 'persisted',
      runs: 1,
      lastOutcome: 'completed',
    });
    expect(JSON.stringify(persisted)).not.toContain(secret);
    expect(JSON.stringify(persisted)).not.toContain('first answer');

    const { logic, input, session } = createAgentLoopLogic({
      model: new ScriptedModel({ tokens, turns: [{ text: 'second answer' }] }),
      tokens,
      sessionId: 'persisted',
      store: loop.session.store,
    });
    const restored = createActor(logic, { input, snapshot: persisted }).start();
    expect(restored.getSnapshot().value).toBe('idle');
    const finished = new Promise((resolve) => restored.on('RunFinished', resolve));
    // Telemetry of the invoked actors reaches a restored loop's listeners too.
    const inference = new Promise((resolve) => restored.on('InferenceStarted', resolve));
    restored.send({ type: 'user.message', content: 'and again' });
    await expect(finished).resolves.toMatchObject({ outcome: 'completed' });
    await expect(inference).resolves.toMatchObject({ step: 1 });
    expect(restored.getSnapshot().context.runs).toBe(2);
    expect(session.items.map((item) => item.kind)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    restored.stop();
  });
});
