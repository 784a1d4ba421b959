import { ConfigError } from '../errors/index.js';

/**
 * A seq argument of a store call, when given: a whole number of 0 or more. `expectedSeq` is a
 * last-seen seq (0 for an empty session); for `fromSeq`, 0 and 1 both mean from the beginning.
 */
export function assertSeqArgument(name: string, seq: unknown): asserts seq is number | undefined {
  if (seq === undefined || (typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0)) {
    return;
  }
  throw new ConfigError(`${name} must be a whole number of 0 or more, got ${String(seq)}`, {
    code: 'config_invalid_option',
  });
}
