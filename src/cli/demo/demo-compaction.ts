import { type Compactor, createCompactor } from '../../compaction/compactor.js';
import { extractiveSummarizer } from '../../compaction/summarizers/extractive.js';
import { contextWindowTrigger } from '../../compaction/triggers/context-window-trigger.js';
import type { CompactionBudget } from '../../compaction/types.js';

/** The demo's compaction policy for a small window, with its budget shown in the header. */
export interface DemoCompaction {
  readonly compactor: Compactor;
  readonly budget: CompactionBudget;
}

/**
 * A compactor sized for a small window: the defaults of the strategies suit 128k-token models
 * (they protect the last 20k tokens), so the protected tail and the summary's kept tail scale
 * with the window here. The summary tier uses the offline extractive summarizer.
 */
export function createDemoCompaction({ window }: { window: number }): DemoCompaction {
  const trigger = contextWindowTrigger({ window, outputReserve: Math.floor(window / 8) });
  // Every decision carries the trigger's budget; an empty transcript asks for it without counting.
  const budget = trigger.evaluate({
    transcript: [],
    tokens: { encoding: 'o200k_base', count: () => 0, countItem: () => 0, countText: () => 0 },
  }).budget;
  const recentTokens = Math.floor(budget.targetTokens / 2);
  const compactor = createCompactor({
    trigger,
    backend: extractiveSummarizer(),
    structural: {
      pruneToolResults: {
        protectRecentTokens: recentTokens,
        minSavingsTokens: Math.floor(budget.targetTokens / 10),
      },
    },
    summary: { keepRecentTokens: recentTokens },
    name: 'demo-compactor',
  });
  return { compactor, budget };
}
