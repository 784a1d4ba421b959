import { contextWindowTrigger, createCompactor, openAISummarizer } from 'loopkeeper';

export function createProductionCompactor({ apiKey }: { apiKey: string }) {
  return createCompactor({
    // Fire at 80% of (128k - 8k reserved for long answers); aim at 60% of that line.
    trigger: contextWindowTrigger({ window: 128_000, outputReserve: 8_192, percent: 80 }),
    // Summaries come from a small, cheap model with its own limit on input.
    backend: openAISummarizer({ apiKey, model: 'gpt-4o-mini', maxInputTokens: 100_000 }),
    structural: {
      dropReasoning: { keepLastTurn: true },
      pruneToolResults: { protectRecentTokens: 20_000, minSavingsTokens: 2_000 },
    },
    summary: { keepRecentTokens: 20_000 },
    summaryTimeoutMs: 60_000,
  });
}
