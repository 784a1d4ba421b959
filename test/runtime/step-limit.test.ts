import { createAgentLoop, defineTool, runTurn, validateTranscript } from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedTokenCounter } from '../support/loop-harness.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

describe('maxStepsPerRun', () => {
  it('ends a run that keeps calling tools with outcome step-limit, every call answered', async () => {
    const ping = defineTool({
      name: 'ping',
      description: 'Answers pong.',
      parameters: { type: 'object' },
      execute: () => 'pong',
    });
    let calls = 0;
    const model = new ScriptedModel({
      tokens,
      script: (request) => {
        const last = request.transcript.at(-1);
        // Ask for another ping forever, unless the user spoke last in a second run.
        if (last?.kind === 'user' && last.content === 'stop now') return { text: 'stopped' };
        calls += 1;
        return { toolCalls: [{ id: `call_${calls}`, name: 'ping', arguments: {} }] };
      },
    });
    const loop = createAgentLoop({ model, tools: [ping], tokens, maxStepsPerRun: 3 });
    loop.start();
    const finished = await runTurn(loop, 'ping until told otherwise');
    expect(finished).toMatchObject({ outcome: 'step_limit', steps: 3 });
    expect(finished.error).toBeNull();
    expect(model.requests).toHaveLength(3);
    expect(validateTranscript(loop.session.items)).toEqual([]);
    expect(loop.session.items.filter((item) => item.kind === 'toolResult')).toHaveLength(3);
    expect(loop.getSnapshot().context.lastOutcome).toBe('step_limit');
    const next = await runTurn(loop, 'stop now');
    expect(next.outcome).toBe('completed');
    loop.stop();
  });
});
