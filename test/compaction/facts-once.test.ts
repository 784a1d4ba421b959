import fc from 'fast-check';
import {
  contextWindowTrigger,
  createCompactor,
  createTokenCounter,
  extractiveSummarizer,
  fromChatMessages,
  type Item,
  pruneToolResults,
} from 'loopkeeper';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { findFilePaths, findUrls } from '../../src/compaction/summarizers/extract-patterns.js';
import { validTranscriptArbitrary } from '../support/arbitraries.js';
import { loadTranscriptFixtures } from '../support/transcripts.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await createTokenCounter();
});

/** Text made of the pieces the fact patterns look for, joined by spaces, punctuation and breaks. */
const factTextArbitrary = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '/testbed/src/app.py',
        'src/mod0.ts',
        'setup.py',
        './run.sh',
        '~/notes',
        'https://example.org/a?b=1',
        'http://x.io/login,',
        'ValueError: bad',
        'order_12345',
        '2024-01-02',
        'a@b.io',
        '.',
        '/',
        ':',
        'a',
      ),
      fc.string({ maxLength: 6 }),
    ),
    { maxLength: 12 },
  )
  .chain((pieces) =>
    fc
      .array(fc.constantFrom(' ', '\n', ', ', '.', '', '\n\n', '/'), {
        minLength: pieces.length,
        maxLength: pieces.length,
      })
      .map((separators) => pieces.map((piece, index) => piece + separators[index]).join('')),
  );

/** A copy of every item as a new object: no cache keyed by item knows it. */
function coldCopies(items: readonly Item[]): Item[] {
  return items.map((item) => structuredClone(item));
}

describe('facts found once per item', () => {
  it('property: paths and URLs found text by text are those found in the texts joined by line breaks', () => {
    fc.assert(
      fc.property(fc.array(factTextArbitrary, { maxLength: 5 }), (texts) => {
        const joined = texts.join('\n');
        expect([...new Set(texts.flatMap(findFilePaths))]).toEqual(findFilePaths(joined));
        expect([...new Set(texts.flatMap(findUrls))]).toEqual(findUrls(joined));
      }),
      { numRuns: 300 },
    );
  });

  it('property: a summarizer that has seen the items writes what a fresh one writes from copies', async () => {
    await fc.assert(
      fc.asyncProperty(
        validTranscriptArbitrary({ maxTurns: 4 }),
        fc.array(factTextArbitrary, { minLength: 1, maxLength: 4 }),
        async (transcript, texts) => {
          // The generated facts go into user requests and tool outputs, where the summary looks.
          const items = transcript.map((item, index): Item => {
            const text = texts[index % texts.length] as string;
            if (item.kind === 'toolResult') return { ...item, content: `${item.content}\n${text}` };
            if (item.kind === 'user') return { ...item, content: `${text}\nmust not ${text}` };
            return item;
          });
          const warm = extractiveSummarizer();
          const first = await warm.summarize({
            transcript: items,
            maxTokens: 2_000,
            signal: new AbortController().signal,
          });
          const again = await warm.summarize({
            transcript: items,
            maxTokens: 2_000,
            signal: new AbortController().signal,
          });
          const cold = await extractiveSummarizer().summarize({
            transcript: coldCopies(items),
            maxTokens: 2_000,
            signal: new AbortController().signal,
          });
          expect(again.text).toBe(first.text);
          expect(first.text).toBe(cold.text);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('the budget check writes the placeholders, so the compaction after it tokenizes no pruned copy', async () => {
    const fixture = loadTranscriptFixtures().find((entry) => entry.messages.length > 40);
    if (fixture === undefined) throw new Error('no fixture with more than 40 messages');
    const items = fromChatMessages(fixture.messages);
    const counter = await createTokenCounter();
    const window = Math.floor(counter.count(items) / 0.9);
    const seen = new WeakSet<Item>();
    const unseen: string[] = [];
    let checking = true;
    // A counter that notes every item object it is asked about during the budget check, and
    // every item object the compaction asks about that the check never saw.
    const watching: TokenCounter = {
      encoding: counter.encoding,
      count: (list) => list.reduce((sum, item) => sum + watching.countItem(item), 0),
      countItem(item) {
        if (checking) seen.add(item);
        else if (!seen.has(item) && item.id.startsWith('pruned_')) unseen.push(item.id);
        return counter.countItem(item);
      },
      countText: (text) => counter.countText(text),
    };
    const compactor = createCompactor({
      trigger: contextWindowTrigger({ window, outputReserve: 0 }),
      backend: extractiveSummarizer(),
    });
    // Item by item, as a loop's budget check sees the transcript grow.
    let budget = compactor.evaluate({ transcript: items.slice(0, 1), tokens: watching }).budget;
    for (let end = 2; end <= items.length; end += 1) {
      budget = compactor.evaluate({ transcript: items.slice(0, end), tokens: watching }).budget;
    }
    checking = false;
    const signal = new AbortController().signal;
    const request = { transcript: items, reason: 'threshold' as const, budget };
    const warm = await pruneToolResults().apply(request, { tokens: watching, signal });
    expect(warm.transcript.some((item) => item.id.startsWith('pruned_'))).toBe(true);
    expect(unseen).toEqual([]);

    // The same pass over cold copies, with no budget check before it, writes the same text.
    const cold = await pruneToolResults().apply(
      { ...request, transcript: coldCopies(items) },
      { tokens: await createTokenCounter(), signal },
    );
    const content = (list: readonly Item[]) => list.map(({ id: _id, ...rest }) => rest);
    expect(content(warm.transcript)).toEqual(content(cold.transcript));
  });

  it('property: remembered counts of long texts are the counts a fresh counter gives', async () => {
    const texts = Array.from(
      { length: 12 },
      (_, index) => `${'word '.repeat(500 + index * 37)}${index} ${'ä€'.repeat(index * 50)}`,
    );
    // Each text counted cold, by a counter of its own that has remembered nothing.
    const cold: number[] = [];
    for (const text of texts) cold.push((await createTokenCounter()).countText(text));
    fc.assert(
      fc.property(fc.array(fc.nat({ max: texts.length - 1 }), { maxLength: 40 }), (order) => {
        for (const index of order) {
          expect(tokens.countText(texts[index] as string)).toBe(cold[index]);
        }
      }),
      { numRuns: 50 },
    );
  });
});
