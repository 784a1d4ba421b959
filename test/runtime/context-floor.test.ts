import {
  contextWindowTrigger,
  createAgentLoop,
  createCompactor,
  extractiveSummarizer,
  runTurn,
} from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordTelemetry, sharedTokenCounter } from '../support/loop-harness.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

function loopWith(instructions: string) {
  const model = new ScriptedModel({ tokens, script: () => ({ text: 'Done.' }) });
  const loop = createAgentLoop({
    model,
    tokens,
    instructions,
    compactor: createCompactor({
      trigger: contextWindowTrigger({ window: 2_500 }),
      backend: extractiveSummarizer(),
    }),
  });
  const events = recordTelemetry(loop);
  loop.start();
  return { loop, model, events };
}

describe('a floor larger than the line', () => {
  it('a request that cannot be cut (text with an image) ends the run once with a ContextOverflowError naming the latest turn', async () => {
    const { loop, model, events } = loopWith('Be brief.');
    expect((await runTurn(loop, 'Hello.')).outcome).toBe('completed');
    const requests = model.requests.length;
    const finished = await runTurn(loop, [
      { type: 'text', text: `Describe this. ${'context '.repeat(3_000)}` },
      { type: 'image', url: 'https://example.invalid/cat.png' },
    ]);
    expect(finished.outcome).toBe('failed');
    expect(finished.error?.code).toBe('context_overflow');
    expect(finished.error?.message).toMatch(/the latest user turn alone is \d+ tokens/);
    // Never sent, and no thrash: one emergency prune, then the run ended.
    expect(model.requests.length).toBe(requests);
    expect(events.filter((event) => event.type === 'EmergencyPruneApplied')).toHaveLength(1);
    // The session goes on.
    expect((await runTurn(loop, 'Something short.')).outcome).toBe('completed');
    loop.stop();
  });
});
