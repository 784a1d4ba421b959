import { ConfigError } from '../../errors/config-error.js';
import { requireNonNegative, requireRatio } from '../helpers/options.js';
import type { CompactionTrigger } from '../types.js';
import { hysteresisBudget } from './hysteresis-budget.js';
import { measurePromptTokens } from './measure-prompt-tokens.js';

export interface ContextWindowTriggerOptions {
  /** The model's context window in tokens. */
  readonly window: number;
  /** Tokens kept free for the model's answer. Default 8,192. */
  readonly outputReserve?: number;
  /** Fire when the prompt exceeds this share of the window left after the reserve. Default 0.8. */
  readonly percent?: number;
  /** Compaction aims at this share of the trigger line. Default 0.6. */
  readonly targetRatio?: number;
}

/**
 * Fires when the next prompt would exceed `(window - outputReserve) * percent` tokens; that
 * line is the budget's `maxTokens`, and compaction aims at `targetRatio` of it. On the
 * reported basis both are lowered by what the request holds besides items (instructions, tool
 * schemas), since strategies can only shrink the items.
 */
export function contextWindowTrigger({
  window,
  outputReserve = 8_192,
  percent = 0.8,
  targetRatio = 0.6,
}: ContextWindowTriggerOptions): CompactionTrigger {
  const owner = 'contextWindowTrigger';
  requireNonNegative(owner, 'window', window, { positive: true, integer: true });
  requireNonNegative(owner, 'outputReserve', outputReserve, { integer: true });
  if (window <= outputReserve) {
    throw new ConfigError(
      `${owner}: window (${window}) must be larger than outputReserve (${outputReserve})`,
    );
  }
  requireRatio(owner, 'percent', percent);
  requireRatio(owner, 'targetRatio', targetRatio);
  const line = Math.floor((window - outputReserve) * percent);
  return {
    name: 'contextWindow',
    evaluate(input) {
      const { tokens, basis, overhead } = measurePromptTokens(input);
      const budget = hysteresisBudget({ line, targetRatio, overhead });
      return { fire: tokens > line, tokens, basis, budget };
    },
  };
}
