import type { TokenCounter } from '../../tokens/types.js';
import type { Item } from '../../transcript/types.js';

/**
 * Where the protected recent tail starts: walking back from the end, every item whose tokens
 * still fit in `protectTokens` is protected. Tool results after the last assistant item are
 * always protected too: the model has not read them yet, and pruning them would only make it
 * run the same tool again.
 */
export function protectedTailStart(
  items: readonly Item[],
  tokens: TokenCounter,
  protectTokens: number,
): number {
  let start = items.length;
  let used = 0;
  while (start > 0) {
    const cost = tokens.countItem(items[start - 1] as Item);
    if (used + cost > protectTokens) break;
    used += cost;
    start -= 1;
  }
  let unread = items.length;
  while (unread > 0 && items[unread - 1]?.kind === 'toolResult') unread -= 1;
  return Math.min(start, unread);
}
