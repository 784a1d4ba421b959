import { type CompactionBackend, createCompactor, tokenBudgetTrigger } from 'loopkeeper';
import type { Compactor } from 'loopkeeper/compaction';

export type SummarizerFault = 'error' | 'timeout' | 'empty' | 'sectionless';

/** A summarizer backend that fails in one of the ways a real LLM summarizer does. */
export function faultyBackend(fault: SummarizerFault): CompactionBackend & { calls: number } {
  const backend = {
    name: `faulty-${fault}`,
    maxInputTokens: 100_000,
    calls: 0,
    async summarize() {
      backend.calls += 1;
      switch (fault) {
        case 'error':
          throw new Error('summarizer is down');
        case 'timeout':
          // Ignores its signal on purpose: the compactor's own timeout must end the wait.
          return new Promise<never>(() => undefined);
        case 'empty':
          return { text: '   ' };
        case 'sectionless':
          return { text: 'The user asked about loops and the assistant explained them.' };
      }
    },
  };
  return backend;
}

/**
 * A compactor that fires once the transcript passes 1,000 tokens, with the failing backend, so a
 * long answer in the faulty turn pushes it into the summary tier. The latest turn alone stays
 * under the line, so the emergency prune can always save the run.
 */
export function summarizingCompactor(
  backend: CompactionBackend,
  { summaryTimeoutMs = 100 }: { summaryTimeoutMs?: number } = {},
): Compactor {
  return createCompactor({
    trigger: tokenBudgetTrigger({ maxTokens: 1_000 }),
    backend,
    summary: { keepRecentTokens: 100 },
    summaryTimeoutMs,
  });
}

/** An answer of about 600 tokens: over the line together with the warm-up, under it alone. */
export const longAnswer = `Here is the long explanation. ${'word '.repeat(600)}`;
