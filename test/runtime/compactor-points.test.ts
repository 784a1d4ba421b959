import {
  createAgentLoop,
  createCompactor,
  openAIChatModel,
  runTurn,
  tokenBudgetTrigger,
} from 'loopkeeper';
import type { CompactionTrigger, MutationPoint } from 'loopkeeper/compaction';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { readLogTool, useFakeServer } from '../support/fake-server.js';
import { recordTelemetry, sharedTokenCounter } from '../support/loop-harness.js';

let tokens: TokenCounter;
const startServer = useFakeServer();
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

/**
 * A small budget that every request of the turn exceeds; records the points it is asked at.
 * `alwaysFire` keeps it firing after compaction, so the emergency prune runs too.
 */
function recordingTrigger(
  seen: (MutationPoint | undefined)[],
  alwaysFire: boolean,
  maxTokens = 1_500,
): CompactionTrigger {
  const inner = tokenBudgetTrigger({ maxTokens });
  return {
    name: 'recording',
    evaluate(input) {
      seen.push(input.point);
      const decision = inner.evaluate(input);
      return alwaysFire ? { ...decision, fire: true } : decision;
    },
  };
}

async function runToolTurn(
  points: readonly MutationPoint[],
  { alwaysFire = false, maxTokens = 1_500 } = {},
) {
  const server = await startServer({
    replies: [
      { toolCalls: [{ id: 'call_0', name: 'read_log', arguments: { part: 0 } }] },
      { toolCalls: [{ id: 'call_1', name: 'read_log', arguments: { part: 1 } }] },
      { toolCalls: [{ id: 'call_2', name: 'read_log', arguments: { part: 2 } }] },
      { text: 'The logs are read.' },
    ],
  });
  const seen: (MutationPoint | undefined)[] = [];
  const loop = createAgentLoop({
    model: openAIChatModel({ baseURL: server.url, apiKey: 'test', model: 'gpt-test' }),
    tools: [readLogTool],
    compactor: createCompactor({ trigger: recordingTrigger(seen, alwaysFire, maxTokens), points }),
    tokens,
  });
  loop.start();
  const telemetry = recordTelemetry(loop);
  const finished = await runTurn(loop, 'read the three logs');
  loop.stop();
  const compactedAt = telemetry.flatMap((event) =>
    event.type === 'MutationStarted' && event.mutator === 'compactor' ? [event.point] : [],
  );
  const emergencyAt = telemetry.flatMap((event) =>
    event.type === 'MutationStarted' && event.mutator === 'emergencyPrune' ? [event.point] : [],
  );
  const inferences = telemetry.filter((event) => event.type === 'InferenceStarted').length;
  return { finished, seen, compactedAt, emergencyAt, inferences };
}

describe("the loop honours a compactor's points", () => {
  it('a compactor for AfterTurnEnded does not compact at AfterToolResult, as the seed runs compaction only at its configured points', async () => {
    const { finished, seen, compactedAt } = await runToolTurn(['AfterTurnEnded']);
    expect(finished.outcome).toBe('completed');
    // The turn's three tool results push it over budget, but nothing compacts until it ends.
    expect(compactedAt).toEqual(['AfterTurnEnded']);
    expect(seen).not.toContain('AfterToolResult');
    expect(seen).toContain('AfterTurnEnded');
  });

  it('a compactor for every point compacts after the tool results too', async () => {
    const { finished, compactedAt } = await runToolTurn([
      'AfterToolResult',
      'AfterTurnEnded',
      'BeforeInference',
    ]);
    expect(finished.outcome).toBe('completed');
    expect(compactedAt).toContain('AfterToolResult');
  });

  it('the trigger is asked once per step, at the mutation point the loop is at, however far the step compacts', async () => {
    const { seen, compactedAt, inferences } = await runToolTurn(
      ['AfterToolResult', 'AfterTurnEnded', 'BeforeInference'],
      { alwaysFire: true },
    );
    // Every budget check fires and compacts; the compaction (and an emergency prune after an
    // ineffective one) work to the check's decision instead of asking again.
    expect(compactedAt.length).toBeGreaterThan(1);
    // One check before each inference, and one when the turn ends.
    expect(seen).toHaveLength(inferences + 1);
    expect(seen).not.toContain(undefined);
    expect(new Set(seen)).toEqual(
      new Set(['BeforeInference', 'AfterToolResult', 'AfterTurnEnded']),
    );
  });

  it('an over-budget step that goes on to the emergency prune still asks the trigger once', async () => {
    const { seen, emergencyAt, inferences } = await runToolTurn(
      ['AfterToolResult', 'AfterTurnEnded', 'BeforeInference'],
      { alwaysFire: true, maxTokens: 300 },
    );
    expect(emergencyAt.length).toBeGreaterThan(0);
    expect(seen).toHaveLength(inferences + 1);
  });
});
