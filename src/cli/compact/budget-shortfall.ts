import { latestTurnStart } from '../../compaction/helpers/structure.js';
import { CompactionError } from '../../errors/compaction-error.js';
import type { TokenCounter } from '../../tokens/types.js';
import type { Item } from '../../transcript/types.js';
import { formatCount } from '../output/format.js';
import { leadingInstructionCount } from './compact-transcript.js';

/** Strategies that drop whole older messages or turns, where the default pipeline only shrinks them. */
const STRONG_STRATEGIES = ['emergencyPrune', 'keepRecent'] as const;

/**
 * The error for a result still over `--max-tokens`: by how much, and the one change that can
 * help. No strategy drops the latest user turn nor the leading system prompts, so when they
 * alone are over the budget only a larger budget helps, and no stronger strategy is suggested.
 */
export function budgetShortfall({
  after,
  tokensAfter,
  maxTokens,
  strategies,
  output,
  tokens,
}: {
  after: readonly Item[];
  tokensAfter: number;
  maxTokens: number;
  strategies: readonly string[];
  output: string;
  tokens: TokenCounter;
}): CompactionError {
  const instructions = after.slice(0, leadingInstructionCount(after));
  const floor = tokens.count([...instructions, ...after.slice(latestTurnStart(after))]);
  const kept =
    instructions.length === 0
      ? 'the latest user turn holds'
      : 'the system prompts and the latest user turn hold';
  const missing = STRONG_STRATEGIES.find((name) => !strategies.includes(name));
  const advice =
    floor > maxTokens
      ? `${kept} ${formatCount(floor)} of them and no strategy drops those: raise --max-tokens`
      : missing === undefined
        ? 'raise --max-tokens'
        : `add a stronger strategy: --strategy ${[...strategies, missing].join(',')}`;
  const written = output === '-' ? 'stdout' : output;
  return new CompactionError(
    `The result is still ${formatCount(tokensAfter - maxTokens)} tokens over --max-tokens (${formatCount(tokensAfter)} > ${formatCount(maxTokens)}); ${advice}. It was written to ${written} anyway.`,
    { code: 'budget_not_met' },
  );
}
