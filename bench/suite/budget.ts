import { contextWindowTrigger } from '../../src/compaction/triggers/context-window-trigger.js';

/**
 * The output reserve the benchmarks give `contextWindowTrigger` (its default is 0): a fixed
 * 8,192 tokens keeps the published figures comparable with earlier runs.
 */
export const BENCH_OUTPUT_RESERVE = 8_192;

/**
 * The one budget every contender works to for a model window: loopkeeper's
 * `contextWindowTrigger` line (its default percent of the window less `BENCH_OUTPUT_RESERVE`) and its
 * hysteresis target (60% of the line).
 */
export interface WindowBudget {
  readonly window: number;
  readonly line: number;
  readonly target: number;
}

export function windowBudget({ window }: { readonly window: number }): WindowBudget {
  const { budget } = contextWindowTrigger({ window, outputReserve: BENCH_OUTPUT_RESERVE }).evaluate(
    {
      transcript: [],
      tokens: { encoding: 'o200k_base', count: () => 0, countItem: () => 0, countText: () => 0 },
    },
  );
  return { window, line: budget.maxTokens, target: budget.targetTokens };
}
