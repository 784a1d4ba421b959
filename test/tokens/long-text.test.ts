import fc from 'fast-check';
import cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import o200k from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { createTextCounter, MAX_EXACT_PIECE_LENGTH } from '../../src/tokens/count-text.js';
import { loadEncoding } from '../../src/tokens/load-encoding.js';

const plain = { disallowedSpecial: new Set<string>() };

// Characters on every side of the pre-tokenizer's rules: cases, digits, contractions,
// punctuation with trailing newlines and slashes, whitespace runs, marks and astral symbols.
const tricky = fc.constantFrom(
  ...[
    'a',
    'B',
    'é',
    'ß',
    '中',
    '1',
    '7',
    "'",
    's',
    'll',
    '/',
    '!',
    '{',
    '}',
    ' ',
    '  ',
    '\n',
    '\r\n',
    '\t',
    '\u0301',
    '😀',
    '<|endoftext|>',
  ],
);
const trickyText = fc.array(tricky, { maxLength: 120 }).map((parts) => parts.join(''));

/** The pieces gpt-tokenizer's pre-tokenizer splits text into. */
function piecesOf(text: string, pattern: RegExp): string[] {
  return [...text.matchAll(new RegExp(pattern.source, pattern.flags))].map((match) => match[0]);
}

const encodings = [
  ['o200k_base', o200k],
  ['cl100k_base', cl100k],
] as const;

describe('createTextCounter', () => {
  it.each(encodings)(
    'property (%s): cutting at piece boundaries not preceded by whitespace keeps the count exact',
    async (encoding, library) => {
      const { splitPattern } = await loadEncoding({ encoding });
      fc.assert(
        fc.property(trickyText, fc.array(fc.nat(), { maxLength: 6 }), (text, cutSeeds) => {
          const pieces = piecesOf(text, splitPattern);
          expect(pieces.join('')).toBe(text);
          const cuts = [...new Set(cutSeeds.map((seed) => seed % (pieces.length + 1)))]
            // At the end of input `\s+(?!\S)` (and cl100k's `\s+$`) would merge a whitespace run
            // that the full text splits in two: such cuts are not exact, and the counter avoids them.
            .filter((cut) => !/\s$/u.test(pieces.slice(0, cut).join('')))
            .sort((a, b) => a - b);
          let start = 0;
          let segmentTokens = 0;
          for (const end of [...cuts, pieces.length]) {
            segmentTokens += library.encode(pieces.slice(start, end).join(''), plain).length;
            start = end;
          }
          expect(segmentTokens).toBe(library.encode(text, plain).length);
        }),
        { numRuns: 300 },
      );
    },
  );

  it.each(encodings)(
    'property (%s): segments between oversized pieces exact, windows inside them',
    async (encoding, library) => {
      const loaded = await loadEncoding({ encoding });
      const maxExactPieceLength = 4;
      // Every text takes the scanning path, and most pieces longer than a word are cut out.
      const count = createTextCounter({ ...loaded, directCountLength: 0, maxExactPieceLength });
      const encode = (text: string) => library.encode(text, plain).length;
      const windowed = (piece: string) => {
        let tokens = 0;
        for (let start = 0; start < piece.length; ) {
          let end = Math.min(start + maxExactPieceLength, piece.length);
          if (end < piece.length && /[\uD800-\uDBFF]/.test(piece.charAt(end - 1))) end -= 1;
          tokens += encode(piece.slice(start, end));
          start = end;
        }
        return tokens;
      };
      fc.assert(
        fc.property(trickyText, (text) => {
          let model = 0;
          let segment = '';
          for (const piece of piecesOf(text, loaded.splitPattern)) {
            if (piece.length <= maxExactPieceLength) {
              segment += piece;
              continue;
            }
            // Whitespace right before an oversized piece is windowed with it.
            const trailing = /\s*$/u.exec(segment)?.[0] ?? '';
            model +=
              encode(segment.slice(0, segment.length - trailing.length)) +
              windowed(trailing + piece);
            segment = '';
          }
          expect(count(text)).toBe(model + encode(segment));
        }),
        { numRuns: 300 },
      );
    },
  );

  it('counts an oversized piece in windows, within one token per window', async () => {
    const count = createTextCounter(await loadEncoding({ encoding: 'o200k_base' }));
    const run = 'qwertyuiopasdfghjklzxcvbnm'.repeat(800); // one 20,800-letter piece
    const text = `Output follows:\n${run}\nDone, 3 files.`;
    const windows = Math.ceil(run.length / MAX_EXACT_PIECE_LENGTH);
    const exact = o200k.encode(text, plain).length;
    expect(Math.abs(count(text) - exact)).toBeLessThanOrEqual(windows);
  });

  it('estimates the part of a text past exactTextLength from samples, within 1%', async () => {
    const loaded = await loadEncoding({ encoding: 'o200k_base' });
    const count = createTextCounter({
      ...loaded,
      exactTextLength: 50_000,
      sampleCount: 16,
      sampleLength: 1_024,
    });
    const paragraphs = [
      'def handler(event, context):\n    return {"status": 200, "body": event["path"]}\n',
      'ERROR 2026-11-03 12:00:01 worker-3 timeout after 30000 ms while reading /var/data/blob\n',
      'Die Antwort ist zweiundvierzig; les données sont prêtes. 数据已经准备好了。\n',
    ];
    let text = '';
    for (let index = 0; text.length < 400_000; index += 1)
      text += paragraphs[index % 3] + String(index);
    const exact = o200k.encode(text, plain).length;
    expect(Math.abs(count(text) - exact) / exact).toBeLessThan(0.01);
  });

  it('never splits a surrogate pair at a window or sample edge', async () => {
    const loaded = await loadEncoding({ encoding: 'o200k_base' });
    const count = createTextCounter({ ...loaded, maxExactPieceLength: 3, directCountLength: 0 });
    // A 12-emoji symbol run is one piece; windows of 3 UTF-16 units must not cut an emoji.
    const text = '🚀'.repeat(12);
    expect(count(text)).toBe(12 * o200k.encode('🚀', plain).length);
  });
});
