import { createAgentLoopLogic, defineTool, type TelemetryEvent } from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { createActor, sendTo, setup, spawnChild } from 'xstate';
import { sharedTokenCounter } from '../support/loop-harness.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

describe('agentLoopMachine as a child of a host machine', () => {
  it('runs a turn when spawned with spawnChild and reports telemetry to the host', async () => {
    const clock = defineTool({
      name: 'clock',
      description: 'Tells the time.',
      parameters: { type: 'object' },
      execute: () => '12:00',
    });
    const { logic, input, session } = createAgentLoopLogic({
      model: new ScriptedModel({
        tokens,
        turns: [{ toolCalls: [{ name: 'clock', arguments: {} }] }, { text: 'It is noon.' }],
      }),
      tools: [clock],
      tokens,
      sessionId: 'child-session',
    });
    const host = setup({
      actors: { agentLoop: logic },
      types: {
        context: {} as { finished: string[] },
        events: {} as { type: 'ask'; question: string },
      },
    }).createMachine({
      context: { finished: [] },
      entry: spawnChild('agentLoop', { id: 'loop', systemId: 'loop', input }),
      on: {
        ask: {
          actions: sendTo('loop', ({ event }) => ({
            type: 'user.message' as const,
            content: event.question,
          })),
        },
      },
    });
    const actor = createActor(host).start();
    const loop = actor.system.get('loop') as
      | ReturnType<typeof createActor<typeof logic>>
      | undefined;
    expect(loop).toBeDefined();
    const events: TelemetryEvent[] = [];
    const done = new Promise<TelemetryEvent>((resolve) => {
      loop?.on('*', (event: TelemetryEvent) => {
        events.push(event);
        if (event.type === 'RunFinished') resolve(event);
      });
    });
    actor.send({ type: 'ask', question: 'What time is it?' });
    await expect(done).resolves.toMatchObject({ outcome: 'completed', sessionId: 'child-session' });
    expect(events.map((event) => event.type)).toContain('ToolCallFinished');
    expect(session.items.map((item) => item.kind)).toEqual([
      'user',
      'assistant',
      'toolResult',
      'assistant',
    ]);
    actor.stop();
  });
});
