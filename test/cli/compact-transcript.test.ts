import { createTokenCounter, fromChatMessages, type Item } from 'loopkeeper';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderCompactReport } from '../../src/cli/compact/compact-report.js';
import { compactTranscript } from '../../src/cli/compact/compact-transcript.js';
import { DEFAULT_STRATEGIES } from '../../src/cli/compact/strategy-catalog.js';
import { loadTranscriptFixtures } from '../support/transcripts.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await createTokenCounter();
});

const systemPrompt: Item = {
  kind: 'context',
  id: 'system',
  text: `You are a careful agent. ${'Follow the house rules. '.repeat(60)}`,
};

function conversation(turns: number): Item[] {
  return Array.from({ length: turns }, (_, turn): Item[] => [
    { kind: 'user', id: `u${turn}`, content: `Step ${turn}: ${'details '.repeat(40)}` },
    { kind: 'assistant', id: `a${turn}`, text: `Done with step ${turn}.` },
  ]).flat();
}

describe('compactTranscript (loopkeeper compact)', () => {
  it('never prunes a leading system prompt, even in the emergency tier', async () => {
    const items = [systemPrompt, ...conversation(12)];
    const latestTurn = tokens.count(items.slice(-2)) - tokens.count([]);
    // Too small for the prompt and the latest turn together: the prompt is the part that stays.
    const targetTokens = tokens.countItem(systemPrompt) + latestTurn - 20;
    const result = await compactTranscript({
      items,
      strategies: ['emergencyPrune'],
      budget: { maxTokens: targetTokens, targetTokens },
      protectTokens: 0,
      tokens,
    });
    expect(result.applied).toContain('emergencyPrune');
    expect(result.after[0]).toBe(systemPrompt);
    expect(result.after.slice(-2)).toEqual(items.slice(-2));
    expect(result.after.length).toBeLessThan(items.length);
    expect(result.problems).toEqual([]);
  });

  it('gives the conversation what the system prompt leaves of the budget', async () => {
    const items = [systemPrompt, ...conversation(12)];
    const targetTokens = tokens.countItem(systemPrompt) + 300;
    const result = await compactTranscript({
      items,
      strategies: ['emergencyPrune'],
      budget: { maxTokens: targetTokens, targetTokens },
      protectTokens: 0,
      tokens,
    });
    expect(result.after[0]).toBe(systemPrompt);
    expect(result.tokensAfter).toBeLessThanOrEqual(targetTokens);
  });
});

describe('the compact report', () => {
  // The strategy rows and the verdict speak of the whole transcript, system prompt included,
  // against the budget the header prints, so the figures add up.
  it.each(
    loadTranscriptFixtures().flatMap((fixture) =>
      [2_000, 6_000, 8_192].map((maxTokens) => [fixture.file, maxTokens, fixture] as const),
    ),
  )('adds up for %s under --max-tokens %d', async (_, maxTokens, fixture) => {
    const targetTokens = Math.floor(maxTokens * 0.6);
    const result = await compactTranscript({
      items: fromChatMessages(fixture.messages),
      strategies: DEFAULT_STRATEGIES,
      budget: { maxTokens, targetTokens },
      protectTokens: Math.floor(targetTokens / 2),
      tokens,
    });
    expect(result.instructionTokens).toBeGreaterThan(0);
    expect(result.steps[0]?.tokensBefore).toBe(result.tokensBefore);
    for (const [index, step] of result.steps.entries()) {
      if (index > 0) expect(step.tokensBefore).toBe(result.steps[index - 1]?.tokensAfter);
    }
    expect(result.steps.at(-1)?.tokensAfter).toBe(result.tokensAfter);
    const report = renderCompactReport({
      facts: {
        input: fixture.file,
        output: 'out.json',
        strategies: DEFAULT_STRATEGIES,
        maxTokens,
        targetTokens,
        protectTokens: Math.floor(targetTokens / 2),
        encoding: 'o200k_base',
      },
      result,
      messagesBefore: 0,
      messagesAfter: 0,
      repairs: [],
      written: true,
    });
    const verdict = report.split('\n').find((line) => line.startsWith('The result is'));
    if (result.tokensAfter <= targetTokens) expect(verdict).toMatch(/at or below the target/);
    else expect(verdict).not.toMatch(/at or below the target/);
    if (result.tokensAfter > targetTokens && result.tokensAfter <= maxTokens) {
      expect(verdict).toMatch(/above the target/);
    } else {
      expect(verdict).not.toMatch(/above the target/);
    }
  });
});
