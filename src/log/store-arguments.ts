import { ConfigError } from '../errors/index.js';

/** `expectedSeq` is a last-seen seq: a whole number, 0 for an empty session. */
export function assertExpectedSeq(expectedSeq: unknown): asserts expectedSeq is number | undefined {
  if (expectedSeq === undefined || isSeqNumber(expectedSeq)) return;
  throw new ConfigError(
    `expectedSeq must be a whole number of 0 or more, got ${String(expectedSeq)}`,
    { code: 'config_invalid_option' },
  );
}

/** `fromSeq` is where reading starts; 0 and 1 both mean from the beginning. */
export function assertFromSeq(fromSeq: unknown): asserts fromSeq is number | undefined {
  if (fromSeq === undefined || isSeqNumber(fromSeq)) return;
  throw new ConfigError(`fromSeq must be a whole number of 0 or more, got ${String(fromSeq)}`, {
    code: 'config_invalid_option',
  });
}

function isSeqNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
