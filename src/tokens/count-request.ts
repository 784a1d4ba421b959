import type { Item } from '../transcript/types.js';
import { ITEM_ROLES, MESSAGE_OVERHEAD_TOKENS, REPLY_PRIMING_TOKENS } from './message-overhead.js';
import type { TokenCounter } from './types.js';

/**
 * Tokens of a whole chat request without tool schemas: the instructions as a leading system
 * message, the items, and the reply priming. `counter.count` stays a plain sum over items so
 * strategies can add and subtract item counts; the request-level parts live here.
 *
 * @example
 * ```ts
 * import { countRequest } from 'loopkeeper/tokens';
 * import { createTokenCounter } from 'loopkeeper';
 *
 * const tokens = countRequest({
 *   counter: await createTokenCounter(),
 *   items: [{ kind: 'user', id: 'u1', content: 'Hello' }],
 *   instructions: 'You are terse.',
 * });
 * ```
 */
export function countRequest({
  counter,
  items,
  instructions,
}: {
  readonly counter: TokenCounter;
  readonly items: readonly Item[];
  readonly instructions?: string;
}): number {
  const instructionTokens =
    instructions === undefined || instructions === ''
      ? 0
      : MESSAGE_OVERHEAD_TOKENS +
        counter.countText(ITEM_ROLES.context) +
        counter.countText(instructions);
  return instructionTokens + counter.count(items) + REPLY_PRIMING_TOKENS;
}
