import type { LoadedEncoding } from './load-encoding.js';

/**
 * Special-token text such as `<|endoftext|>` in tool output is data, not a control token:
 * an empty disallow list makes gpt-tokenizer encode it as plain text instead of throwing.
 */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

const WHITESPACE = /\s/u;

/**
 * gpt-tokenizer merges each pre-tokenizer piece in time quadratic in its length, so one long
 * piece (a megabyte of `=` or NUL bytes, a run of spaces) would take hours. Pieces up to this
 * length are counted exactly; real words, numbers and indentation are far shorter. Longer
 * pieces are counted in windows of this length.
 */
export const MAX_EXACT_PIECE_LENGTH = 2_048;

/** Texts up to this length are counted in one call: no piece in them can take long. */
export const DIRECT_COUNT_LENGTH = 8_192;

/**
 * Texts are counted exactly up to this length (100k to 350k tokens, more than any single
 * item should hold); beyond it the rest is estimated from evenly spaced samples. High-entropy
 * text such as base64 counts at well under 1 MB/s in gpt-tokenizer, and counting is
 * synchronous: a 10 MB blob must not block the event loop for a minute.
 */
export const EXACT_TEXT_LENGTH = 500_000;

/** Samples for the estimated rest of a long text: 64 × 4 KB, about 1,000 tokens each. */
export const SAMPLE_COUNT = 64;
export const SAMPLE_LENGTH = 4_096;

export interface TextCounterOptions extends LoadedEncoding {
  readonly maxExactPieceLength?: number;
  readonly directCountLength?: number;
  readonly exactTextLength?: number;
  readonly sampleCount?: number;
  readonly sampleLength?: number;
}

/**
 * Returns a function counting the tokens of plain text as gpt-tokenizer's `encode` would:
 * exactly, except inside pieces longer than `maxExactPieceLength` (counted window by window,
 * within about one token per window) and past `exactTextLength` (estimated from samples).
 */
export function createTextCounter({
  tokenizer,
  splitPattern,
  maxExactPieceLength = MAX_EXACT_PIECE_LENGTH,
  directCountLength = DIRECT_COUNT_LENGTH,
  exactTextLength = EXACT_TEXT_LENGTH,
  sampleCount = SAMPLE_COUNT,
  sampleLength = SAMPLE_LENGTH,
}: TextCounterOptions): (text: string) => number {
  const countDirect = (text: string): number =>
    text.length === 0 ? 0 : tokenizer.countTokens(text, PLAIN_TEXT);
  // A private copy: the library's pattern object is shared and `exec` moves its lastIndex.
  const pieces = new RegExp(splitPattern.source, splitPattern.flags);

  const countOversized = (piece: string): number => {
    let tokens = 0;
    for (let start = 0; start < piece.length; ) {
      const end = cutBefore(piece, start + maxExactPieceLength);
      tokens += countDirect(piece.slice(start, end));
      start = end;
    }
    return tokens;
  };

  const countExact = (text: string): number => {
    if (text.length <= directCountLength) return countDirect(text);
    /*
     * Cutting text at a piece boundary leaves every piece as it was, provided the text before
     * the cut does not end in whitespace (the pattern has no lookbehind; only its whitespace
     * rules, `\s+(?!\S)` and cl100k's `\s+$`, read the end of input differently). So the
     * whitespace right before an oversized piece is counted with it, and the segments between
     * are counted exactly.
     */
    let tokens = 0;
    let segmentStart = 0;
    pieces.lastIndex = 0;
    for (let match = pieces.exec(text); match !== null; match = pieces.exec(text)) {
      const piece = match[0];
      if (piece.length <= maxExactPieceLength) continue;
      let cut = match.index;
      while (cut > segmentStart && WHITESPACE.test(text.charAt(cut - 1))) cut -= 1;
      const end = match.index + piece.length;
      tokens += countDirect(text.slice(segmentStart, cut));
      tokens += countOversized(text.slice(cut, end));
      segmentStart = end;
    }
    return tokens + countDirect(segmentStart === 0 ? text : text.slice(segmentStart));
  };

  const estimateRest = (rest: string): number => {
    if (rest.length <= sampleCount * sampleLength) return countExact(rest);
    let sampledTokens = 0;
    let sampledCharacters = 0;
    const stride = (rest.length - sampleLength) / (sampleCount - 1);
    for (let sample = 0; sample < sampleCount; sample += 1) {
      const start = cutBefore(rest, Math.floor(sample * stride));
      const text = rest.slice(start, cutBefore(rest, start + sampleLength));
      sampledTokens += countExact(text);
      sampledCharacters += text.length;
    }
    return Math.round((sampledTokens / sampledCharacters) * rest.length);
  };

  return (text) => {
    if (text.length <= exactTextLength) return countExact(text);
    const cut = cutBefore(text, exactTextLength);
    return countExact(text.slice(0, cut)) + estimateRest(text.slice(cut));
  };
}

/** `index`, or one before it when cutting there would split a surrogate pair. */
function cutBefore(text: string, index: number): number {
  if (index >= text.length) return text.length;
  const code = text.charCodeAt(index - 1);
  return code >= 0xd800 && code <= 0xdbff ? index - 1 : index;
}
