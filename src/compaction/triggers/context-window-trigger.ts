import { ConfigError } from '../../errors/config-error.js';
import { requireNonNegative, requireRatio } from '../helpers/options.js';
import type { CompactionTrigger } from '../types.js';
import { hysteresisBudget } from './hysteresis-budget.js';
import { measurePromptTokens } from './measure-prompt-tokens.js';

/**
 * The defaults of `contextWindowTrigger`: fire at 55% of the window, aim at 60% of that line.
 * Benches that set a trigger line derive the window from `percent` (see docs/compaction.md,
 * "Why the default line is 55%").
 */
export const CONTEXT_WINDOW_DEFAULTS = { percent: 55, targetRatio: 0.6 } as const;

export interface ContextWindowTriggerOptions {
  /** The model's context window in tokens. */
  readonly window: number;
  /**
   * Tokens of the window kept free for the model's answer, taken off before `percent` applies.
   * Default 0: the percent alone leaves room for the answer, and a small
   * window works with the defaults. Set it when answers are long (say 8,192 on a 128k window).
   */
  readonly outputReserve?: number;
  /**
   * Fire when the next prompt reaches this many percent of the window (less `outputReserve`):
   * 55 means 55%. Default 55 (see docs/compaction.md, "Why the default line is 55%"). Values
   * at or below 1 are refused as ratios written by mistake.
   */
  readonly percent?: number;
  /** Compaction aims at this share (a ratio in (0, 1]) of the trigger line. Default 0.6. */
  readonly targetRatio?: number;
}

/**
 * Fires when the next prompt reaches `(window - outputReserve) * percent / 100` tokens (at or
 * above the line); that line is the
 * budget's `maxTokens`, and compaction aims at `targetRatio` of it. The window less the
 * reserve is the budget's `limitTokens`: when only the latest turn is left and it is over the
 * line, the transcript still fits while it is under the window. On the reported basis all three
 * are lowered by what the request holds besides items (instructions, tool schemas), since
 * strategies can only shrink the items.
 *
 * @example
 * ```ts
 * import { contextWindowTrigger, createCompactor, extractiveSummarizer } from 'loopkeeper';
 *
 * // Compact when the prompt reaches 80% of a 128k window, 8k kept free for the answer.
 * const compactor = createCompactor({
 *   trigger: contextWindowTrigger({ window: 128_000, outputReserve: 8_000, percent: 80 }),
 *   backend: extractiveSummarizer(),
 * });
 * ```
 */
export function contextWindowTrigger({
  window,
  outputReserve = 0,
  percent = CONTEXT_WINDOW_DEFAULTS.percent,
  targetRatio = CONTEXT_WINDOW_DEFAULTS.targetRatio,
}: ContextWindowTriggerOptions): CompactionTrigger {
  const owner = 'contextWindowTrigger';
  requireNonNegative(owner, 'window', window, { positive: true, integer: true });
  requireNonNegative(owner, 'outputReserve', outputReserve, { integer: true });
  if (window <= outputReserve) {
    throw new ConfigError(
      `${owner}: window (${window}) must be larger than outputReserve (${outputReserve})`,
    );
  }
  requirePercent(owner, percent);
  requireRatio(owner, 'targetRatio', targetRatio);
  const line = Math.floor(((window - outputReserve) * percent) / 100);
  return {
    name: 'contextWindow',
    window,
    evaluate(input) {
      const { tokens, basis, overhead } = measurePromptTokens(input);
      const budget = hysteresisBudget({
        line,
        targetRatio,
        overhead,
        limit: window - outputReserve,
      });
      return { fire: tokens >= line, tokens, basis, budget };
    },
  };
}

/**
 * A percent in (1, 100]. A value at or below 1 is almost surely a ratio (0.8 meant as 80%, or
 * the old `percent: 1` meant as 100%); read as percents it would compact on nearly every step.
 */
function requirePercent(owner: string, percent: number): void {
  if (typeof percent !== 'number' || !Number.isFinite(percent) || percent <= 0 || percent > 100) {
    throw new ConfigError(`${owner}: percent must be in (0, 100], got ${String(percent)}`);
  }
  if (percent <= 1) {
    throw new ConfigError(
      `${owner}: percent takes percents, got ${percent}, which looks like a ratio; write ${Math.round(percent * 100)} for ${Math.round(percent * 100)}%`,
    );
  }
}
