import { createAgentLoop, defineTool, LoopNotRunningError, runTurn } from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedTokenCounter } from '../support/loop-harness.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

/** Answers each user message with its own words, after one tool call for "look it up". */
function echoModel() {
  return new ScriptedModel({
    tokens,
    script: (request) => {
      const last = request.transcript.at(-1);
      if (last?.kind === 'user' && last.content === 'look it up') {
        return { toolCalls: [{ name: 'lookup', arguments: { key: 'answer' } }] };
      }
      if (last?.kind === 'toolResult') return { text: `found ${last.content}` };
      return { text: `echo: ${last?.kind === 'user' ? String(last.content) : '?'}`, delayMs: 5 };
    },
  });
}

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a key up.',
  parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
  execute: async ({ key }: { key: string }) => `${key}=42`,
});

describe('runTurn', () => {
  it('resolves each of two overlapping calls with its own run', async () => {
    const loop = createAgentLoop({ model: echoModel(), tools: [lookup], tokens });
    loop.start();
    const [first, second] = await Promise.all([runTurn(loop, 'first'), runTurn(loop, 'second')]);
    expect(first.runId).not.toBe(second.runId);
    expect(first).toMatchObject({ type: 'RunFinished', outcome: 'completed', text: 'echo: first' });
    expect(second).toMatchObject({ outcome: 'completed', text: 'echo: second' });
    expect(first.itemsAdded.map((item) => item.kind)).toEqual(['user', 'assistant']);
    expect(second.itemsAdded[0]).toMatchObject({ kind: 'user', content: 'second' });
    loop.stop();
  });

  it('returns the text, items added, summed usage and steps of a run with tool calls', async () => {
    const model = echoModel();
    const loop = createAgentLoop({ model, tools: [lookup], tokens });
    loop.start();
    await runTurn(loop, 'warm up');
    const result = await runTurn(loop, 'look it up');
    expect(result).toMatchObject({
      outcome: 'completed',
      error: null,
      steps: 2,
      text: 'found answer=42',
    });
    expect(result.itemsAdded.map((item) => item.kind)).toEqual([
      'user',
      'assistant',
      'toolResult',
      'assistant',
    ]);
    const reported = model.responses.slice(1).map((response) => response.usage);
    expect(result.usage).toEqual({
      promptTokens: (reported[0]?.promptTokens ?? 0) + (reported[1]?.promptTokens ?? 0),
      completionTokens: (reported[0]?.completionTokens ?? 0) + (reported[1]?.completionTokens ?? 0),
      cachedTokens: 0,
    });
    expect(result.usage.promptTokens).toBeGreaterThan(0);
    loop.stop();
  });

  it('rejects with LoopNotRunningError on a loop that was never started', async () => {
    const loop = createAgentLoop({ model: echoModel(), tokens });
    const error = await runTurn(loop, 'hello').catch((caught: unknown) => caught);
    expect(LoopNotRunningError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'loop_not_running' });
    expect(String(error)).toMatch(/never started/);
  });

  it('rejects with LoopNotRunningError after stop(), and when the loop stops mid-run', async () => {
    const stopped = createAgentLoop({ model: echoModel(), tokens });
    stopped.start();
    stopped.stop();
    await expect(runTurn(stopped, 'hello')).rejects.toSatisfy(LoopNotRunningError.isInstance);

    const slow = new ScriptedModel({ tokens, turns: [{ text: 'late', delayMs: Infinity }] });
    const loop = createAgentLoop({ model: slow, tokens });
    loop.start();
    const pending = runTurn(loop, 'hello');
    loop.stop();
    await expect(pending).rejects.toSatisfy(LoopNotRunningError.isInstance);
  });

  it('rejects on a loop closed with close', async () => {
    const loop = createAgentLoop({ model: echoModel(), tokens });
    loop.start();
    loop.send({ type: 'close' });
    await expect(runTurn(loop, 'hello')).rejects.toSatisfy(LoopNotRunningError.isInstance);
  });
});
