import { is } from 'valibot';
import { ConfigError } from '../errors/index.js';
import { CountSchema } from '../vocabulary/schemas/session-event.js';

/**
 * A seq argument of a store call, when given: a whole number of 0 or more, as a stored seq is
 * (`CountSchema`). `expectedSeq` is a last-seen seq (0 for an empty session); for `fromSeq`, 0
 * and 1 both mean from the beginning.
 */
export function assertSeqArgument(name: string, seq: unknown): asserts seq is number | undefined {
  if (seq === undefined || is(CountSchema, seq)) return;
  throw new ConfigError(`${name} must be a whole number of 0 or more, got ${String(seq)}`, {
    code: 'config_invalid_option',
  });
}
