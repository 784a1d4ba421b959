import { createCompactor, createTokenCounter, type Item } from 'loopkeeper';
import { type CompactionTrigger, createSummaryItem } from 'loopkeeper/compaction';
import { measureCompactionQuality, replayRecording } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await createTokenCounter();
});

// Two paths and an identifier in the goal; the second turn compacts them away behind a summary
// naming one path, the third brings the other path back in its own words.
const GOAL = 'Read src/alpha.ts and docs/beta.md for ticket 98765.';
const SUMMARY = 'Earlier: src/alpha.ts was read.';
const messages = [
  { role: 'user', content: GOAL },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: 'call_1',
        type: 'function',
        function: { name: 'read', arguments: '{"path":"src/alpha.ts"}' },
      },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', content: 'export const alpha = true;' },
  { role: 'assistant', content: 'Both read.' },
  { role: 'user', content: 'Now say what you saw.' },
  { role: 'assistant', content: 'A constant.' },
  { role: 'user', content: 'Check docs/beta.md again.' },
  { role: 'assistant', content: 'Checked.' },
];

/** Fires once, at the second turn's request (the transcript still starts with the goal). */
const trigger: CompactionTrigger = {
  name: 'second-turn',
  evaluate: ({ transcript }) => ({
    fire:
      transcript[0]?.kind === 'user' &&
      transcript.at(-1)?.kind === 'user' &&
      transcript.filter((item) => item.kind === 'user').length === 2,
    tokens: 0,
    basis: 'estimate',
    budget: { maxTokens: 10_000, targetTokens: 6_000 },
  }),
};

/** Keeps the latest request behind a summary naming one path of the dropped part. */
function scriptedCompactor() {
  const compactor = createCompactor({ trigger });
  return {
    ...compactor,
    async compact(input: Parameters<typeof compactor.compact>[0]) {
      const outcome = await compactor.compact(input);
      const latest = input.transcript.at(-1) as Item;
      const transcript = [createSummaryItem(SUMMARY), latest];
      return {
        ...outcome,
        transcript,
        tier: 'summary' as const,
        tokensAfter: tokens.count(transcript),
        effective: true,
      };
    },
  };
}

describe('the lowest recall at a request of measureCompactionQuality', () => {
  it('records, with every request, the items logged before it was made', async () => {
    const { requests, loop } = await replayRecording({
      messages,
      tokens,
      compactor: scriptedCompactor(),
    });
    // Request 2 is the second turn's, compacted: five items logged, two sent.
    expect(requests.map((request) => request.logged.length)).toEqual([1, 3, 5, 7]);
    expect(requests[2]?.items.map((item) => item.kind)).toEqual(['context', 'user']);
    expect(requests[2]?.logged.map((item) => item.kind)).toEqual([
      'user',
      'assistant',
      'toolResult',
      'assistant',
      'user',
    ]);
    const logged: Item[] = [];
    for await (const event of loop.session.store.read(loop.session.sessionId)) {
      if (event.type === 'items-appended') logged.push(...event.items);
    }
    expect(requests[3]?.logged).toEqual(logged.slice(0, 7));
  });

  it('finds a fact dropped mid-run that the final request shows again', async () => {
    const report = await measureCompactionQuality({
      name: 'recall',
      messages,
      line: 10_000,
      tokens,
      compactor: () => scriptedCompactor(),
    });
    expect(report.failures).toEqual([]);
    expect(report.requests).toBe(4);
    expect(report.compactions).toBe(1);

    // By hand. Request 2 (the second turn's, the first after the compaction) holds the summary
    // and "Now say what you saw."; its dropped part is the first turn: paths src/alpha.ts and
    // docs/beta.md, identifier 98765, no error line. The summary shows src/alpha.ts only.
    // Request 3 holds the summary, the second turn and "Check docs/beta.md again.": docs/beta.md
    // is its own, so of the dropped part's paths only src/alpha.ts counts, shown (1 of 1); 98765
    // is still not shown (0 of 1, as at request 2: the earlier request is reported).
    expect(report.lowestAtRequest).toEqual({
      paths: { request: 2, dropped: 2, visible: 1 },
      errorLines: undefined,
      identifiers: { request: 2, dropped: 1, visible: 0 },
    });
    // The final measure sees the paths all kept: docs/beta.md is back by the end.
    expect(report.paths).toMatchObject({ dropped: 1, visible: 1 });
    expect(report.identifiers).toMatchObject({ dropped: 1, visible: 0 });
    expect(report.finalSummary).toContain(SUMMARY);

    // Deterministic: the same replay gives the same figures.
    const again = await measureCompactionQuality({
      name: 'recall',
      messages,
      line: 10_000,
      tokens,
      compactor: () => scriptedCompactor(),
    });
    expect(again.lowestAtRequest).toEqual(report.lowestAtRequest);
  });

  it('has nothing to report when nothing compacts', async () => {
    const report = await measureCompactionQuality({
      name: 'no compaction',
      messages,
      line: 100_000,
      tokens,
    });
    expect(report.compactions).toBe(0);
    expect(report.lowestAtRequest).toEqual({
      paths: undefined,
      errorLines: undefined,
      identifiers: undefined,
    });
  });
});
