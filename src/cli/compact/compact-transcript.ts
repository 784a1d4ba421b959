import { type PipelineStep, pipeline } from '../../compaction/pipeline.js';
import { extractiveSummarizer } from '../../compaction/summarizers/extractive.js';
import { isSummaryItem } from '../../compaction/summary.js';
import type { CompactionBudget } from '../../compaction/types.js';
import type { TokenCounter } from '../../tokens/types.js';
import type { Item, ProtocolProblem } from '../../transcript/types.js';
import { validateTranscript } from '../../transcript/validate-transcript.js';
import { CommandError } from '../command-error.js';
import { STRATEGY_CATALOG } from './strategy-catalog.js';

export interface CompactTranscriptResult {
  readonly before: readonly Item[];
  readonly after: readonly Item[];
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** Tokens of the leading system prompts, which no strategy sees or changes. */
  readonly instructionTokens: number;
  /**
   * Every strategy of the pipeline, with tokens before and after it or why it did nothing. The counts
   * are of the whole transcript (the system prompts included), as `tokensBefore`/`tokensAfter`.
   */
  readonly steps: readonly PipelineStep[];
  /** Names of the strategies that changed the transcript. */
  readonly applied: readonly string[];
  /** Protocol problems of the result; empty unless a strategy broke its promise. */
  readonly problems: readonly ProtocolProblem[];
}

/** How many items at the start are host system prompts (context items other than a summary). */
export function leadingInstructionCount(items: readonly Item[]): number {
  const index = items.findIndex((item) => item.kind !== 'context' || isSummaryItem(item));
  return index === -1 ? items.length : index;
}

/**
 * Runs the named strategies as one pipeline over a transcript, offline: the summary tier uses
 * the extractive summarizer. The pipeline stops once the transcript is at or under the target.
 * Leading system prompts are kept as they are, never pruned.
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
  // Leading system prompts are the host's instructions, not conversation: no strategy sees
  // them, and the budget left for the conversation is what they leave of it.
  const instructions = items.slice(0, leadingInstructionCount(items));
  const conversation = items.slice(instructions.length);
  const instructionTokens = tokens.count(instructions) - tokens.count([]);
  const conversationBudget = {
    maxTokens: Math.max(0, budget.maxTokens - instructionTokens),
    targetTokens: Math.max(0, budget.targetTokens - instructionTokens),
  };
  const settings = { protectTokens, targetTokens: conversationBudget.targetTokens };
  const chain = pipeline(
    ...strategies.map((name) => {
      const entry = STRATEGY_CATALOG[name];
      if (entry === undefined) {
        throw new CommandError(`Unknown compaction strategy "${name}"`, {
          code: 'unknown_strategy',
        });
      }
      return entry.create(settings);
    }),
  );
  const result = await chain.apply(
    { transcript: conversation, reason: 'manual', budget: conversationBudget },
    { tokens, backend: extractiveSummarizer(), signal: new AbortController().signal },
  );
  const { steps, applied } = result.metadata;
  const after =
    result.transcript === conversation ? items : [...instructions, ...result.transcript];
  return {
    before: items,
    after,
    tokensBefore: tokens.count(items),
    tokensAfter: tokens.count(after),
    instructionTokens,
    // The pipeline saw only the conversation; the system prompts are added back so every
    // figure is of the whole transcript, against the same budget the report prints.
    steps: steps.map((step) => ({
      ...step,
      tokensBefore: step.tokensBefore + instructionTokens,
      tokensAfter: step.tokensAfter + instructionTokens,
    })),
    applied,
    problems: validateTranscript(after),
  };
}
