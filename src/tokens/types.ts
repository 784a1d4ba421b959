import type { Item } from '../transcript/types.js';

export type TokenEncoding = 'o200k_base' | 'cl100k_base';

/** Exact, synchronous token counting over items, cached per item id. */
export interface TokenCounter {
  readonly encoding: TokenEncoding;
  /** Tokens of the items as rendered into a chat request (message and tool-call overhead included). */
  count(items: readonly Item[]): number;
  countItem(item: Item): number;
  /** Tokens of plain text with no message overhead; special-token text is counted as text. */
  countText(text: string): number;
}
