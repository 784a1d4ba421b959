import {
  CompactionError,
  type CompactionStrategy,
  createAgentLoop,
  createCompactor,
  openAIChatModel,
  runTurn,
  tokenBudgetTrigger,
} from 'loopkeeper';
import type { CompactionTrigger, CompactorOptions } from 'loopkeeper/compaction';
import type { MutationFinished } from 'loopkeeper/runtime';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { readLogTool, useFakeServer } from '../support/fake-server.js';
import { recordTelemetry, sharedTokenCounter } from '../support/loop-harness.js';

let tokens: TokenCounter;
const startServer = useFakeServer();
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

/** Fires on its first call only: the loop's budget check compacts once, and the result counts as effective. */
function fireOnce(): CompactionTrigger {
  const inner = tokenBudgetTrigger({ maxTokens: 100_000 });
  let calls = 0;
  return {
    name: 'fire-once',
    evaluate(input) {
      calls += 1;
      return { ...inner.evaluate(input), fire: calls === 1 };
    },
  };
}

const leaveAsIs: CompactionStrategy = {
  name: 'leaveAsIs',
  apply: async ({ transcript }) => ({ transcript, metadata: {} }),
};

const clearOutputs: CompactionStrategy = {
  name: 'clearOutputs',
  apply: async ({ transcript }) => ({
    transcript: transcript.map((item) =>
      item.kind === 'toolResult'
        ? { ...item, id: `${item.id}_cleared`, content: '[cleared]' }
        : item,
    ),
    metadata: {},
  }),
};

/** Throws, so the loop goes on to the emergency prune. */
const failing: CompactionStrategy = {
  name: 'failing',
  apply: async () => {
    throw new CompactionError('no summary today');
  },
};

/** One tool turn, compacted once when it ends; the MutationFinished events of the given mutator. */
async function finishedMutations(
  mutator: string,
  options: Omit<CompactorOptions, 'trigger' | 'points'>,
): Promise<MutationFinished[]> {
  const server = await startServer({
    replies: [
      { toolCalls: [{ id: 'call_0', name: 'read_log', arguments: { part: 0 } }] },
      { toolCalls: [{ id: 'call_1', name: 'read_log', arguments: { part: 1 } }] },
      { text: 'The logs are read.' },
    ],
  });
  const loop = createAgentLoop({
    model: openAIChatModel({ baseURL: server.url, apiKey: 'test', model: 'gpt-test' }),
    tools: [readLogTool],
    compactor: createCompactor({ trigger: fireOnce(), points: ['AfterTurnEnded'], ...options }),
    tokens,
  });
  loop.start();
  const telemetry = recordTelemetry(loop);
  const finished = await runTurn(loop, 'read the two logs');
  loop.stop();
  expect(finished.outcome).toBe('completed');
  const mutations = telemetry.filter(
    (event): event is MutationFinished =>
      event.type === 'MutationFinished' && event.mutator === mutator,
  );
  // Each one ran to its end: an interrupted mutation is clean for another reason.
  for (const event of mutations) expect(event.metadata).not.toHaveProperty('interruptedBy');
  return mutations;
}

describe('MutationFinished.dirty of the loop’s own compaction', () => {
  it('a compaction that changes nothing finishes clean, as the seed reports dirty only when the transcript changed', async () => {
    const finished = await finishedMutations('compactor', { strategy: leaveAsIs });
    expect(finished.map((event) => event.dirty)).toEqual([false]);
  });

  it('a compaction that changes the transcript finishes dirty', async () => {
    const finished = await finishedMutations('compactor', { strategy: clearOutputs });
    expect(finished.map((event) => event.dirty)).toEqual([true]);
  });

  it('an emergency prune that changes nothing finishes clean, as the seed reports dirty only when the transcript changed', async () => {
    const finished = await finishedMutations('emergencyPrune', { strategy: failing });
    expect(finished.map((event) => event.dirty)).toEqual([false]);
  });

  it('an emergency prune that changes the transcript finishes dirty', async () => {
    const finished = await finishedMutations('emergencyPrune', {
      strategy: failing,
      emergency: { maxTokens: 400 },
    });
    expect(finished.map((event) => event.dirty)).toEqual([true]);
  });
});
