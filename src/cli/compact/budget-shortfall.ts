import { CommandError } from '../command-error.js';
import { formatCount } from '../output/format.js';

/** Strategies that drop whole older messages or turns, where the default pipeline only shrinks them. */
export const STRONG_STRATEGIES = ['emergencyPrune', 'keepRecent'] as const;

/** What one more strategy would have made of the transcript, tried before giving advice. */
export interface StrategyTrial {
  readonly strategies: readonly string[];
  readonly tokensAfter: number;
}

/**
 * The error for a result still over `--max-tokens`: by how much, and the one change that
 * helps. Advice comes from trials, not rules: each stronger strategy the command line lacks
 * was run, and the first one whose result fits is suggested with the size it reaches. When
 * none fits, the smallest size any of them reached is the budget to ask for, so a suggestion
 * never leaves the user where they were (emergencyPrune keeps whole user turns and changes
 * nothing on a single-turn agent transcript; keepRecent cuts inside that turn).
 */
export function budgetShortfall({
  tokensAfter,
  maxTokens,
  strategies,
  trials,
  written,
}: {
  tokensAfter: number;
  maxTokens: number;
  strategies: readonly string[];
  trials: readonly StrategyTrial[];
  /** Where the result went, or undefined when it was not written. */
  written: string | undefined;
}): CommandError {
  const fitting = trials.find((trial) => trial.tokensAfter <= maxTokens);
  let advice: string;
  if (fitting !== undefined) {
    advice = `add a stronger strategy: --strategy ${fitting.strategies.join(',')} (it gets the result to ${formatCount(fitting.tokensAfter)} tokens)`;
  } else {
    const best = [{ strategies, tokensAfter }, ...trials].reduce((smallest, trial) =>
      trial.tokensAfter < smallest.tokensAfter ? trial : smallest,
    );
    advice =
      best.strategies === strategies
        ? `no stronger strategy gets it lower: raise --max-tokens to at least ${formatCount(best.tokensAfter)}`
        : `the smallest result any strategy reaches is ${formatCount(best.tokensAfter)} tokens (--strategy ${best.strategies.join(',')}): raise --max-tokens to at least that`;
  }
  const where =
    written === undefined
      ? 'It was not written: the output file exists, and a failed run never replaces a file.'
      : `It was written to ${written} anyway.`;
  return new CommandError(
    `The result is still ${formatCount(tokensAfter - maxTokens)} tokens over --max-tokens (${formatCount(tokensAfter)} > ${formatCount(maxTokens)}); ${advice}. ${where}`,
    { code: 'budget_not_met' },
  );
}
