import {
  createCompactor,
  createTokenCounter,
  extractiveSummarizer,
  fromChatMessages,
  pipeline,
  summarizeOlder,
  tokenBudgetTrigger,
} from 'loopkeeper';
import { type CompactionTrigger, isSummaryItem } from 'loopkeeper/compaction';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadTranscriptFixtures } from '../support/transcripts.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await createTokenCounter({ encoding: 'o200k_base' });
});

/** Fires on every check, whatever the transcript holds. */
const alwaysFires: CompactionTrigger = {
  name: 'always',
  evaluate: ({ transcript, tokens: counter }) => {
    const size = counter.count(transcript);
    return {
      fire: true,
      tokens: size,
      basis: 'estimate',
      budget: { maxTokens: size, targetTokens: Math.floor(size / 2) },
    };
  },
};

describe('what a compaction reports', () => {
  it('a compaction that changed nothing is not dirty, as the seed reports nothing replaced', async () => {
    const transcript = fromChatMessages([{ role: 'user', content: 'hello' }]);
    const compactor = createCompactor({ trigger: alwaysFires });
    const output = await compactor.mutate({
      transcript,
      tokens,
      point: 'AfterTurnEnded',
      signal: new AbortController().signal,
    });
    expect(output.dirty).toBe(false);
  });

  it('a custom strategy that writes a summary is labelled tier summary, as the seed summarizing strategy', async () => {
    const fixture = loadTranscriptFixtures()[0];
    if (fixture === undefined) throw new Error('no transcript fixtures');
    const transcript = fromChatMessages(fixture.messages);
    const size = tokens.count(transcript);
    const compactor = createCompactor({
      trigger: tokenBudgetTrigger({ maxTokens: Math.floor(size / 2) }),
      backend: extractiveSummarizer(),
      strategy: pipeline(summarizeOlder({ keepRecentItems: 4, keepRecentTokens: 200 })),
    });
    const output = await compactor.mutate({
      transcript,
      tokens,
      point: 'AfterTurnEnded',
      signal: new AbortController().signal,
    });
    expect(output.dirty).toBe(true);
    if (!output.dirty) return;
    expect(output.marker?.tier).toBe('summary');
    expect(output.marker?.strategies).toContain('summarizeOlder');
  });
});

describe('summarizeOlder by item count', () => {
  it('keeps the last N items and summarizes the rest, as the seed SummarizeOlderStrategy', async () => {
    const transcript = fromChatMessages(
      Array.from({ length: 10 }, (_, index) => [
        { role: 'user' as const, content: `question ${index} about src/part${index}.ts` },
        { role: 'assistant' as const, content: `answer ${index}: ${'detail '.repeat(80)}` },
      ]).flat(),
    );
    const result = await summarizeOlder({ keepRecentItems: 3, keepRecentTokens: 0 }).apply(
      {
        transcript,
        reason: 'threshold',
        budget: { maxTokens: 1_000_000, targetTokens: 1_000_000 },
      },
      { tokens, backend: extractiveSummarizer(), signal: new AbortController().signal },
    );
    const kept = result.transcript.filter((item) => !isSummaryItem(item));
    expect(kept).toEqual(transcript.slice(-3));
    expect(result.transcript.filter(isSummaryItem)).toHaveLength(1);
  });
});
