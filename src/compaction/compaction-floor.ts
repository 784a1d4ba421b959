import type { CompactionBudget } from './types.js';

/** What the last emergency prune of a run left above the trigger line. */
interface Floor {
  readonly runId: string;
  /** Tokens of the items the prune left. */
  readonly tokens: number;
}

/**
 * The hysteresis of a run whose latest turn alone is over the trigger line but within the
 * window (the budget's `limitTokens`): the emergency prune lets such a transcript through, and
 * compacting it again on the next step would find nothing more to cut, yet run the whole
 * pipeline, a summarizer call included, on every step. So after such a prune the budget check
 * holds the transcript within budget until it has grown by the budget's hysteresis gap (line
 * less target) past what the prune left, or would pass the limit, or the run ends. One per
 * `CompactionController`.
 */
export class CompactionFloor {
  #floor: Floor | undefined;

  /** Records what an emergency prune that fit only under the limit left. */
  set(floor: Floor): void {
    this.#floor = floor;
  }

  /** Forgets the floor: a compaction or prune brought the transcript under the line. */
  clear(): void {
    this.#floor = undefined;
  }

  /** Whether a check that fired with the items at `tokens` should wait, by the floor of this run. */
  holds(runId: string, tokens: number, budget: CompactionBudget): boolean {
    const floor = this.#floor;
    if (floor === undefined || floor.runId !== runId || budget.limitTokens === undefined) {
      return false;
    }
    const growth = tokens - floor.tokens;
    return growth < budget.maxTokens - budget.targetTokens && tokens <= budget.limitTokens;
  }
}
