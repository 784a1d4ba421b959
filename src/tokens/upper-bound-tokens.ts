import type { Item } from '../transcript/types.js';
import { countItemTokens, type ItemCountingRules } from './count-item.js';

/**
 * Every token of a byte-level BPE encoding (o200k_base, cl100k_base) stands for at least one
 * byte of the text's UTF-8, so a text's byte length bounds its count from above; the message
 * and tool-call overheads are the exact counter's own.
 */
const BOUND_RULES: ItemCountingRules = {
  countText: utf8Length,
  roleTokens: {
    user: 'user'.length,
    assistant: 'assistant'.length,
    tool: 'tool'.length,
    system: 'system'.length,
  },
};

/**
 * An upper bound of what `createTokenCounter`'s `count(items)` returns for `items`, without
 * loading an encoding: each text counts as its UTF-8 bytes.
 */
export function upperBoundTokens(items: readonly Item[]): number {
  let tokens = 0;
  for (const item of items) tokens += countItemTokens({ item, rules: BOUND_RULES });
  return tokens;
}

/** UTF-8 bytes of a string (a lone surrogate is sent as U+FFFD, three bytes). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
      bytes += 4;
      index += 1;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
