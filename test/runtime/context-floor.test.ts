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

function loopWith(instructions: string, trigger = contextWindowTrigger({ window: 2_500 })) {
  const model = new ScriptedModel({ tokens, script: () => ({ text: 'Done.' }) });
  const loop = createAgentLoop({
    model,
    tokens,
    instructions,
    compactor: createCompactor({ trigger, backend: extractiveSummarizer() }),
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

  it('an early line is not a wall: a turn over the line but within the window is sent whole', async () => {
    // The line is 30% of an 8k window; the request is about 3k tokens and cannot be cut.
    const trigger = contextWindowTrigger({ window: 8_000, percent: 30 });
    const { loop, model, events } = loopWith('Be brief.', trigger);
    const text = `Describe this. ${'context '.repeat(3_000)}`;
    const finished = await runTurn(loop, [
      { type: 'text', text },
      { type: 'image', url: 'https://example.invalid/cat.png' },
    ]);
    expect(finished.error ?? null).toBeNull();
    expect(finished.outcome).toBe('completed');
    const sent = model.requests.at(-1)?.transcript.find((item) => item.kind === 'user');
    expect(sent?.kind === 'user' && sent.content).toEqual([
      { type: 'text', text },
      { type: 'image', url: 'https://example.invalid/cat.png' },
    ]);
    // The emergency prune ran, found nothing more to cut, and let the request through.
    expect(events.some((event) => event.type === 'EmergencyPruneApplied')).toBe(true);
    // Over the window it is still an overflow.
    const small = loopWith('Be brief.', contextWindowTrigger({ window: 2_500, percent: 30 }));
    const refused = await runTurn(small.loop, [
      { type: 'text', text },
      { type: 'image', url: 'https://example.invalid/cat.png' },
    ]);
    expect(refused.error?.code).toBe('context_overflow');
    loop.stop();
    small.loop.stop();
  });
});
