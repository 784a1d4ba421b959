import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { createAgentLoop, createCompactor, runTurn, tokenBudgetTrigger } from 'loopkeeper';
import { aiSdkModel } from 'loopkeeper/ai-sdk';
import { describe, expect, it } from 'vitest';
import { recordTelemetry, sharedTokenCounter } from '../support/loop-harness.js';

/** A model whose tokenizer counts far more than o200k does: it reports 5,000 prompt tokens. */
function answer(reported: number | undefined): LanguageModelV3GenerateResult {
  return {
    content: [{ type: 'text', text: 'Noted.' }],
    finishReason: { unified: 'stop', raw: 'end_turn' },
    usage: {
      inputTokens: { total: reported, noCache: reported, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: reported === undefined ? undefined : 3, text: 3, reasoning: 0 },
    },
    warnings: [],
  };
}

async function triggerFacts(reported: number | undefined) {
  const mock = new MockLanguageModelV3({ doGenerate: [answer(reported), answer(reported)] });
  const loop = createAgentLoop({
    model: aiSdkModel(mock),
    tokens: await sharedTokenCounter(),
    compactor: createCompactor({ trigger: tokenBudgetTrigger({ maxTokens: 3_000 }) }),
  });
  const telemetry = recordTelemetry(loop);
  loop.start();
  await runTurn(loop, 'Remember the number 1234.');
  await runTurn(loop, 'And 5678.');
  loop.stop();
  const finished = telemetry.filter((event) => event.type === 'MutationFinished');
  // The first check, after the first answer: what the trigger measured and on which basis.
  return finished.map((event) => (event.metadata as { trigger?: unknown }).trigger)[0];
}

describe('aiSdkModel: token counting for a model without OpenAI tokenizer', () => {
  it('measures on the reported usage once the provider reports it', async () => {
    // The o200k estimate of this short session is far below 3,000; the provider's count is not.
    const facts = (await triggerFacts(5_000)) as { tokens: number };
    expect(facts).toMatchObject({ basis: 'reported', fired: true });
    // The report plus the estimate of what was added since (the answer): a few tokens more.
    expect(facts.tokens).toBeGreaterThan(5_000);
    expect(facts.tokens).toBeLessThan(5_050);
  });

  it('uses the estimate while the provider reports no usage', async () => {
    // The estimate (a few dozen tokens) stays under the line, so no compaction runs at all.
    expect(await triggerFacts(undefined)).toBeUndefined();
  });
});
