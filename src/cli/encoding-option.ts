import { TOKEN_ENCODINGS } from '../tokens/load-encoding.js';
import type { TokenEncoding } from '../tokens/types.js';
import { UsageError } from './usage-error.js';

/** The --encoding value, checked; o200k_base when absent. */
export function encodingOption({
  command,
  value,
}: {
  command: string;
  value: string | undefined;
}): TokenEncoding {
  if (value === undefined) return 'o200k_base';
  const found = TOKEN_ENCODINGS.find((encoding) => encoding === value);
  if (found === undefined) {
    throw new UsageError(
      `--encoding must be one of ${TOKEN_ENCODINGS.join(', ')} (got "${value}")`,
      { command },
    );
  }
  return found;
}
