import { ConfigError, createAgentLoop, defineTool, runTurn } from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { executeToolCalls } from 'loopkeeper/tools';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedTokenCounter } from '../support/loop-harness.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

const CALLS = 500;

/** A tool that records how many of its calls run at the same time. */
function gaugedTool() {
  const gauge = { running: 0, peak: 0, ran: 0 };
  const tool = defineTool({
    name: 'work',
    description: 'Does some work.',
    parameters: { type: 'object' },
    execute: async () => {
      gauge.running += 1;
      gauge.peak = Math.max(gauge.peak, gauge.running);
      for (let turn = 0; turn < 3; turn += 1) await new Promise((resolve) => setImmediate(resolve));
      gauge.running -= 1;
      gauge.ran += 1;
      return 'done';
    },
  });
  return { tool, gauge };
}

const calls = Array.from({ length: CALLS }, (_, index) => ({
  id: `call_${index}`,
  name: 'work',
  arguments: '{}',
}));

describe('tool concurrency limit', () => {
  it(`createAgentLoop runs at most 16 of ${CALLS} calls of one answer at once by default`, async () => {
    const { tool, gauge } = gaugedTool();
    const loop = createAgentLoop({
      model: new ScriptedModel({
        tokens,
        turns: [
          { toolCalls: calls.map(({ id, name }) => ({ id, name, arguments: {} })) },
          { text: 'All done.' },
        ],
      }),
      tools: [tool],
      tokens,
    });
    loop.start();
    const result = await runTurn(loop, 'Do the work.');
    expect(result.outcome).toBe('completed');
    expect(gauge).toEqual({ running: 0, peak: 16, ran: CALLS });
    const results = result.itemsAdded.filter((item) => item.kind === 'toolResult');
    expect(results.map((item) => item.kind === 'toolResult' && item.callId)).toEqual(
      calls.map((call) => call.id),
    );
    loop.stop();
  });

  it('maxParallelTools sets the limit, and a bad value is refused', async () => {
    const { tool, gauge } = gaugedTool();
    const results = await executeToolCalls({ tools: [tool], calls, maxConcurrency: 3 });
    expect(results).toHaveLength(CALLS);
    expect(gauge.peak).toBe(3);
    expect(() =>
      createAgentLoop({ model: new ScriptedModel({ turns: [] }), maxParallelTools: 0, tokens }),
    ).toThrow(ConfigError);
  });

  it('calls still waiting for a slot when the run is aborted settle as aborted, never run', async () => {
    const { tool, gauge } = gaugedTool();
    const controller = new AbortController();
    const pending = executeToolCalls({
      tools: [tool],
      calls,
      maxConcurrency: 4,
      signal: controller.signal,
      onCallStarted: ({ callId }) => {
        if (callId === 'call_10') controller.abort();
      },
    });
    const results = await pending;
    expect(results).toHaveLength(CALLS);
    expect(gauge.ran).toBeLessThan(20);
    expect(results.filter((result) => result.isError).length).toBeGreaterThan(CALLS - 20);
  });
});
