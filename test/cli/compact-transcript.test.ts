import { createTokenCounter, type Item } from 'loopkeeper';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { compactTranscript } from '../../src/cli/compact/compact-transcript.js';

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
