import {
  type CompactionBackend,
  contextWindowTrigger,
  createAgentLoop,
  createCompactor,
  defineTool,
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

  describe('a turn over the line but within the window is not compacted on every step', () => {
    /** A loop whose turns take `steps` tool calls with ~`outputWords`-word outputs each. */
    function toolLoop(steps: number, outputWords: number) {
      let summaries = 0;
      const counted = extractiveSummarizer();
      const backend: CompactionBackend = {
        ...counted,
        summarize(request) {
          summaries += 1;
          return counted.summarize(request);
        },
      };
      let answer = 0;
      const model = new ScriptedModel({
        tokens,
        script: () => {
          answer += 1;
          return answer % (steps + 1) === 0
            ? { text: 'Done.' }
            : { toolCalls: [{ id: `c${answer}`, name: 'ls', arguments: '{}' }] };
        },
      });
      const ls = defineTool({
        name: 'ls',
        description: 'Lists files.',
        parameters: { type: 'object' },
        execute: () => 'src/a.py '.repeat(outputWords),
      });
      const loop = createAgentLoop({
        model,
        tokens,
        tools: [ls],
        compactor: createCompactor({
          // A line of 2,400 tokens, within an 8k window.
          trigger: contextWindowTrigger({ window: 8_000, percent: 30 }),
          backend,
        }),
      });
      const events = recordTelemetry(loop);
      loop.start();
      return { loop, events, summaries: () => summaries };
    }
    const big = [
      { type: 'text' as const, text: `Describe this. ${'context '.repeat(3_000)}` },
      { type: 'image' as const, url: 'https://example.invalid/cat.png' },
    ];
    const compactions = (events: ReturnType<typeof recordTelemetry>) =>
      events.filter((event) => event.type === 'CompactionStarted').length;

    it('compacts once, then holds while the turn grows by less than the hysteresis gap', async () => {
      const { loop, events, summaries } = toolLoop(3, 30);
      // An earlier turn gives the summarizer something to fold at every compaction.
      expect((await runTurn(loop, `First, ${'note '.repeat(300)}`)).outcome).toBe('completed');
      const before = { compactions: compactions(events), summaries: summaries() };
      const finished = await runTurn(loop, big);
      expect(finished).toMatchObject({ outcome: 'completed', steps: 4 });
      // Without the floor every one of the 4 steps (and the turn's end) compacted again,
      // calling the summarizer each time.
      expect(compactions(events) - before.compactions).toBe(1);
      expect(summaries() - before.summaries).toBe(1);
      loop.stop();
    });

    it('compacts again once the turn has grown by the gap, and a new run starts afresh', async () => {
      const { loop, events } = toolLoop(12, 150);
      const finished = await runTurn(loop, big);
      expect(finished.outcome).toBe('completed');
      const inTurn = compactions(events);
      expect(inTurn).toBeGreaterThan(1);
      expect(inTurn).toBeLessThan(finished.steps);
      // The next turn can fold the big one into the summary: it compacts at its first check.
      const next = await runTurn(loop, 'Now something short.');
      expect(next.outcome).toBe('completed');
      expect(compactions(events)).toBeGreaterThan(inTurn);
      loop.stop();
    });
  });
});
