import { type PipelineStep, pipeline } from '../../compaction/pipeline.js';
import { extractiveSummarizer } from '../../compaction/summarizers/extractive.js';
import type { CompactionBudget } from '../../compaction/types.js';
import { ConfigError } from '../../errors/config-error.js';
import type { TokenCounter } from '../../tokens/types.js';
import type { Item, ProtocolProblem } from '../../transcript/types.js';
import { validateTranscript } from '../../transcript/validate-transcript.js';
import { STRATEGY_CATALOG } from './strategy-catalog.js';

export interface CompactTranscriptResult {
  readonly before: readonly Item[];
  readonly after: readonly Item[];
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** Every strategy of the pipeline, with tokens before and after it or why it did nothing. */
  readonly steps: readonly PipelineStep[];
  /** Names of the strategies that changed the transcript. */
  readonly applied: readonly string[];
  /** Protocol problems of the result; empty unless a strategy broke its promise. */
  readonly problems: readonly ProtocolProblem[];
}

/**
 * Runs the named strategies as one pipeline over a transcript, offline: the summary tier uses
 * the extractive summarizer. The pipeline stops once the transcript is at or under the target.
 */
export async function compactTranscript({
  items,
  strategies,
  budget,
  protectTokens,
  tokens,
}: {
  items: readonly Item[];
  strategies: readonly string[];
  budget: CompactionBudget;
  protectTokens: number;
  tokens: TokenCounter;
}): Promise<CompactTranscriptResult> {
  const settings = { protectTokens, targetTokens: budget.targetTokens };
  const chain = pipeline(
    ...strategies.map((name) => {
      const entry = STRATEGY_CATALOG[name];
      if (entry === undefined) {
        throw new ConfigError(`Unknown compaction strategy "${name}"`, {
          code: 'unknown_strategy',
        });
      }
      return entry.create(settings);
    }),
  );
  const result = await chain.apply(
    { transcript: items, reason: 'manual', budget },
    { tokens, backend: extractiveSummarizer(), signal: new AbortController().signal },
  );
  const { steps, applied } = result.metadata as { steps: PipelineStep[]; applied: string[] };
  return {
    before: items,
    after: result.transcript,
    tokensBefore: tokens.count(items),
    tokensAfter: tokens.count(result.transcript),
    steps,
    applied,
    problems: validateTranscript(result.transcript),
  };
}
