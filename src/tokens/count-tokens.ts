import type { Item } from '../transcript/types.js';
import { createTokenCounter } from './create-token-counter.js';
import type { TokenEncoding } from './types.js';

/**
 * One-off total for a list of items. Hosts that count repeatedly should keep a counter from
 * `createTokenCounter`: its per-item cache is what makes recounting cheap.
 *
 * @example
 * ```ts
 * import { countTokens } from 'loopkeeper/tokens';
 *
 * // One-off count; for repeated counts keep a createTokenCounter() counter and its cache.
 * const tokens = await countTokens([{ kind: 'user', id: 'u1', content: 'How many tokens?' }], {
 *   encoding: 'cl100k_base',
 * });
 * ```
 */
export async function countTokens(
  items: readonly Item[],
  { encoding = 'o200k_base' }: { readonly encoding?: TokenEncoding } = {},
): Promise<number> {
  const counter = await createTokenCounter({ encoding });
  return counter.count(items);
}
