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
import { ArtifactLedger } from 'loopkeeper/compaction';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { ledgerFactsOf } from '../../src/compaction/ledger/artifact-ledger.js';
import { createLedgerMemo } from '../../src/compaction/ledger/ledger-memo.js';
import { findFilePaths, findUrls } from '../../src/compaction/summarizers/extract-patterns.js';
import { validTranscriptArbitrary } from '../support/arbitraries.js';
import { loadDerivedTranscripts } from '../support/derived-transcripts.js';
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

/** The longest recording (three customers' sessions as one), as items. */
function largestFixture(): Item[] {
  const fixture = [...loadTranscriptFixtures(), ...loadDerivedTranscripts()].sort(
    (left, right) => right.messages.length - left.messages.length,
  )[0];
  if (fixture === undefined) throw new Error('no transcript fixture');
  return fromChatMessages(fixture.messages);
}

/** A transcript's content without the ids (a summary gets a fresh id every time it is written). */
const contentOf = (list: readonly Item[]) => list.map(({ id: _id, ...rest }) => rest);

describe('a compaction run again over the same items', () => {
  it('property: a ledger folded from facts found once is the ledger folded from the items', () => {
    fc.assert(
      fc.property(
        validTranscriptArbitrary({ maxTurns: 4 }),
        fc.array(factTextArbitrary, { minLength: 1, maxLength: 4 }),
        (transcript, texts) => {
          const items = transcript.map((item, index): Item => {
            const text = texts[index % texts.length] as string;
            if (item.kind === 'toolResult') return { ...item, content: `${item.content}\n${text}` };
            if (item.kind === 'user') return { ...item, content: text };
            return item;
          });
          const folded = new ArtifactLedger();
          folded.append(items);
          const memo = createLedgerMemo();
          // Facts found for a part of the items first, then for all of them.
          memo(items.slice(0, Math.ceil(items.length / 2)));
          expect(memo(items).toJSON()).toEqual(folded.toJSON());
          expect(memo(items)).toBe(memo(items));
          const once = new ArtifactLedger();
          once.appendWith(items, ledgerFactsOf);
          expect(once.toJSON()).toEqual(folded.toJSON());
        },
      ),
      { numRuns: 60 },
    );
  });

  it('tokenizes no text again and writes what a fresh compactor writes over copies', async () => {
    const items = largestFixture();
    const counter = await createTokenCounter();
    let textsCounted = 0;
    const watching: TokenCounter = {
      encoding: counter.encoding,
      count: (list) => counter.count(list),
      countItem: (item) => counter.countItem(item),
      countText(text) {
        textsCounted += 1;
        return counter.countText(text);
      },
    };
    const trigger = contextWindowTrigger({
      window: Math.floor(counter.count(items) / 2),
      outputReserve: 0,
    });
    const compactor = createCompactor({ trigger, backend: extractiveSummarizer() });
    const signal = new AbortController().signal;
    const input = { transcript: items, tokens: watching, reason: 'threshold' as const, signal };
    const first = await compactor.compact(input);
    expect(first.tier).toBe('summary');
    textsCounted = 0;
    const again = await compactor.compact(input);
    // The trail, its cap and the summary's fit are remembered, not rendered and counted again.
    expect(textsCounted).toBe(0);
    expect(again.tokensAfter).toBe(first.tokensAfter);
    expect(contentOf(again.transcript)).toEqual(contentOf(first.transcript));

    const fresh = await createCompactor({ trigger, backend: extractiveSummarizer() }).compact({
      ...input,
      transcript: coldCopies(items),
      tokens: await createTokenCounter(),
    });
    expect(contentOf(again.transcript)).toEqual(contentOf(fresh.transcript));
  });

  it('writes the summary of its own budget, items and instructions, never the one it remembers', async () => {
    const items = largestFixture();
    const counter = await createTokenCounter();
    const total = counter.count(items);
    const trigger = contextWindowTrigger({ window: Math.floor(total / 2), outputReserve: 0 });
    // A fixed tail, so a budget alone changes the summary's size and nothing else.
    const options = { trigger, summary: { keepRecentTokens: 500 } };
    const compactor = createCompactor({ ...options, backend: extractiveSummarizer() });
    const signal = new AbortController().signal;
    const decisionFor = (maxTokens: number) => ({
      fire: true,
      tokens: total,
      basis: 'estimate' as const,
      budget: { maxTokens, targetTokens: Math.floor(maxTokens * 0.6) },
    });
    // Each case differs from the one before in one thing only.
    const cases = [
      { transcript: items, decision: decisionFor(Math.floor(total / 2)) },
      { transcript: items, decision: decisionFor(Math.floor(total / 4)) },
      {
        transcript: items,
        decision: decisionFor(Math.floor(total / 4)),
        instructions: 'Keep the test names.',
      },
      {
        transcript: items.slice(0, -6),
        decision: decisionFor(Math.floor(total / 4)),
        instructions: 'Keep the test names.',
      },
    ];
    const summaries = new Set<string>();
    for (const step of cases) {
      const input = { ...step, tokens: counter, reason: 'threshold' as const, signal };
      const outcome = await compactor.compact(input);
      const fresh = await createCompactor({ ...options, backend: extractiveSummarizer() }).compact({
        ...input,
        transcript: coldCopies(step.transcript),
        tokens: await createTokenCounter(),
      });
      expect(outcome.tier).toBe('summary');
      expect(contentOf(outcome.transcript)).toEqual(contentOf(fresh.transcript));
      const summary = outcome.transcript[0];
      summaries.add(summary?.kind === 'context' ? summary.text : '');
    }
    // Each case is a different summary, so none was a remembered one by mistake.
    expect(summaries.size).toBe(cases.length);
  });
});
