import { ConfigError } from '../errors/config-error.js';

/**
 * The gap between a provider's reported `prompt_tokens` and the local estimate of the same
 * request: tool schemas, formatting the estimate cannot see. Added to later estimates.
 */
export interface Calibration {
  /** Tokens to add to an estimate; 0 until the first `record`. */
  readonly offset: number;
  /** How many reports have been recorded. */
  readonly samples: number;
  record(report: { readonly reportedPromptTokens: number; readonly estimatedTokens: number }): void;
  /** The estimate corrected by the offset, never below zero. */
  adjust(estimate: number): number;
}

/**
 * `smoothing` is the weight the previous offset keeps when a new report arrives. The default,
 * 0, uses the latest report alone: the gap is mostly fixed per configuration (instructions,
 * tool schemas), so the newest report is the best guess, and a changed tool list is picked up
 * at once. Raise it (e.g. 0.5) when reports are noisy, such as with many parallel tool calls.
 *
 * @example
 * ```ts
 * import { createCalibration } from 'loopkeeper/tokens';
 *
 * const calibration = createCalibration({ smoothing: 0.5 });
 * // The provider counted 1_240 prompt tokens where the local estimate said 1_000.
 * calibration.record({ reportedPromptTokens: 1_240, estimatedTokens: 1_000 });
 * console.log(calibration.adjust(2_000)); // 2_240
 * ```
 */
export function createCalibration({
  smoothing = 0,
}: {
  readonly smoothing?: number;
} = {}): Calibration {
  if (!(smoothing >= 0 && smoothing < 1)) {
    throw new ConfigError(`smoothing must be in [0, 1), got ${String(smoothing)}.`, {
      code: 'invalid_smoothing',
    });
  }
  let offset = 0;
  let samples = 0;
  return {
    get offset() {
      return offset;
    },
    get samples() {
      return samples;
    },
    record({ reportedPromptTokens, estimatedTokens }) {
      assertTokenCount('reportedPromptTokens', reportedPromptTokens);
      assertTokenCount('estimatedTokens', estimatedTokens);
      const latest = reportedPromptTokens - estimatedTokens;
      offset = samples === 0 ? latest : Math.round(smoothing * offset + (1 - smoothing) * latest);
      samples += 1;
    },
    adjust(estimate) {
      assertTokenCount('estimate', estimate);
      return Math.max(0, estimate + offset);
    },
  };
}

function assertTokenCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new ConfigError(`${name} must be a non-negative integer, got ${String(value)}.`, {
      code: 'invalid_token_count',
    });
  }
}
