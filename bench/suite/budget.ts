import { contextWindowTrigger } from '../../src/compaction/triggers/context-window-trigger.js';

/**
 * The one budget every contender works to for a model window: loopkeeper's default
 * `contextWindowTrigger` line (80% of the window less an 8,192-token output reserve) and its
 * hysteresis target (60% of the line).
 */
export interface WindowBudget {
  readonly window: number;
  readonly line: number;
  readonly target: number;
}

export function windowBudget({ window }: { readonly window: number }): WindowBudget {
  const { budget } = contextWindowTrigger({ window }).evaluate({
    transcript: [],
    tokens: { encoding: 'o200k_base', count: () => 0, countItem: () => 0, countText: () => 0 },
  });
  return { window, line: budget.maxTokens, target: budget.targetTokens };
}
