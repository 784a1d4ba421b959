import fc from 'fast-check';
import type { Item } from 'loopkeeper';
import { clipLatestRequest, extractiveSummarizer, toolOutputLimit } from 'loopkeeper/compaction';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { clipText } from '../../src/compaction/helpers/clip-text.js';
import { toolOutputFacts } from '../../src/compaction/helpers/tool-output-placeholder.js';
import { sliceText, wellFormedText, wellFormedValue } from '../../src/transcript/code-points.js';
import { sharedTokenCounter } from '../support/loop-harness.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const isWellFormed = (text: string) => !LONE.test(text);
/** Text of astral characters (two UTF-16 units each), shifted by a one-unit prefix or not. */
const emoji = (count: number, shift: boolean) => `${shift ? 'a' : ''}${'😀'.repeat(count)}`;

describe('sliceText (holds: never splits a surrogate pair, never grows)', () => {
  it('cuts only at code-point boundaries, for any text and any cut', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.nat(), fc.nat(), (text, start, end) => {
        const source = wellFormedText(text);
        const slice = sliceText(source, start, end);
        expect(isWellFormed(slice)).toBe(true);
        expect(source.includes(slice)).toBe(true);
        expect(slice.length).toBeLessThanOrEqual(Math.max(0, end - start));
      }),
      { numRuns: 500 },
    );
  });

  it('wellFormedValue replaces lone surrogates in nested strings and keeps untouched objects', () => {
    const clean = { kind: 'user', id: 'u', content: 'ok 😀' };
    expect(wellFormedValue(clean)).toBe(clean);
    const dirty = [{ items: [{ content: 'a\uD83Db', parts: ['\uDE00x'] }] }];
    expect(wellFormedValue(dirty)).toEqual([
      { items: [{ content: 'a\uFFFDb', parts: ['\uFFFDx'] }] },
    ]);
  });
});

describe('clipping cuts at code-point boundaries', () => {
  it('clipText: every cut size of emoji text stays valid Unicode (400 cases)', () => {
    let invalid = 0;
    for (const shift of [false, true]) {
      for (let characters = 1; characters <= 200; characters += 1) {
        if (!isWellFormed(clipText(emoji(500, shift), characters))) invalid += 1;
      }
    }
    expect(invalid).toBe(0);
  });

  it('toolOutputLimit: a clipped emoji output stays valid Unicode', async () => {
    const mutator = toolOutputLimit({ maxTokens: 64 });
    let invalid = 0;
    for (let count = 300; count < 310; count += 1) {
      const transcript: Item[] = [
        { kind: 'user', id: 'u', content: 'Read it.' },
        { kind: 'assistant', id: 'a', toolCalls: [{ id: 'c', name: 'read', arguments: '{}' }] },
        {
          kind: 'toolResult',
          id: 'r',
          callId: 'c',
          toolName: 'read',
          content: emoji(count, count % 2 === 0),
          isError: false,
        },
      ];
      const outcome = await mutator.mutate({
        transcript,
        tokens,
        point: 'AfterToolResult',
        signal: new AbortController().signal,
      } as never);
      const clipped = outcome.dirty ? outcome.transcript?.at(-1) : undefined;
      expect(clipped?.kind).toBe('toolResult');
      if (clipped?.kind === 'toolResult' && !isWellFormed(clipped.content)) invalid += 1;
    }
    expect(invalid).toBe(0);
  });

  it('clipLatestRequest (the emergency clip of a long request) stays valid Unicode', () => {
    let invalid = 0;
    for (let count = 600; count < 604; count += 1) {
      const [clipped] = clipLatestRequest(
        [{ kind: 'user', id: `u${count}`, content: emoji(count, count % 2 === 1) }],
        tokens,
        100,
      );
      if (clipped?.kind !== 'user' || typeof clipped.content !== 'string') throw new Error('lost');
      if (!isWellFormed(clipped.content)) invalid += 1;
    }
    expect(invalid).toBe(0);
  });

  it('fact lines (tool-output error lines, extractive summary lines) stay valid Unicode', async () => {
    let invalid = 0;
    for (const shift of [false, true]) {
      const line = `Error: ${emoji(300, shift)}`;
      if (!isWellFormed(toolOutputFacts(line, 10_000))) invalid += 1;
      const summary = await extractiveSummarizer({ maxLineLength: 41 }).summarize({
        transcript: [
          { kind: 'user', id: 'u1', content: 'Fix the build.' },
          { kind: 'user', id: 'u2', content: emoji(100, shift) },
          { kind: 'assistant', id: 'a1', text: line },
        ],
        signal: new AbortController().signal,
      });
      if (!isWellFormed(summary.text)) invalid += 1;
    }
    expect(invalid).toBe(0);
  });
});
