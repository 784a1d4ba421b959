import { type Compactor, createCompactor } from '../../compaction/compactor.js';
import { extractiveSummarizer } from '../../compaction/summarizers/extractive.js';
import { openAISummarizer } from '../../compaction/summarizers/openai.js';
import { contextWindowTrigger } from '../../compaction/triggers/context-window-trigger.js';

export type SummarizerChoice = 'model' | 'extractive';

/**
 * The compactor of a real session: the default tiers, with the summary written by the same
 * model (or offline, extractively) and the protected tails scaled to the window.
 */
export function createRunCompactor({
  window,
  summarizer,
  model,
  baseURL,
  apiKey,
}: {
  window: number;
  summarizer: SummarizerChoice;
  model: string;
  baseURL: string | undefined;
  apiKey: string;
}): Compactor {
  const outputReserve = Math.min(8_192, Math.floor(window / 8));
  const trigger = contextWindowTrigger({ window, outputReserve });
  const recentTokens = Math.min(20_000, Math.floor(window / 5));
  const backend =
    summarizer === 'extractive'
      ? extractiveSummarizer()
      : openAISummarizer({
          model,
          apiKey,
          ...(baseURL === undefined ? {} : { baseURL }),
          maxInputTokens: Math.floor(window / 2),
        });
  return createCompactor({
    trigger,
    backend,
    structural: { pruneToolResults: { protectRecentTokens: recentTokens } },
    summary: { keepRecentTokens: recentTokens },
    name: 'run-compactor',
  });
}
