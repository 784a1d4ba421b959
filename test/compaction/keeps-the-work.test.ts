import {
  contextWindowTrigger,
  createCompactor,
  createTokenCounter,
  extractiveSummarizer,
  fromChatMessages,
  type Item,
  pruneToolResults,
  type SessionEvent,
  summarizeOlder,
  validateTranscript,
} from 'loopkeeper';
import {
  type CompactionBudget,
  createSummaryItem,
  isSummaryItem,
  pruneLargestToolResults,
  summaryBody,
} from 'loopkeeper/compaction';
import { buildReplacementView, createProjection } from 'loopkeeper/log';
import { measureCompactionQuality } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { summaryCapFor } from '../../src/compaction/compactor-sizes.js';
import { headroomLine } from '../../src/compaction/compactor-steps.js';
import { replacedItemId } from '../../src/compaction/helpers/derived-item.js';
import { recordedGoal } from '../../src/compaction/summary-goal.js';
import { loadDerivedTranscripts } from '../support/derived-transcripts.js';
import { loadTranscriptFixtures } from '../support/transcripts.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await createTokenCounter();
});

const signal = () => new AbortController().signal;

/** A session of `turns` turns, each reading a file whose output names a path and an error. */
function session(turns: number): Item[] {
  const items: Item[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    items.push(
      {
        kind: 'user',
        id: `u${turn}`,
        content:
          turn === 0
            ? 'Fix the crash in src/core/engine.py for order ORD-4417.'
            : `Go on (${turn}).`,
      },
      {
        kind: 'assistant',
        id: `a${turn}`,
        toolCalls: [{ id: `c${turn}`, name: 'read', arguments: `{"path":"src/mod${turn}.py"}` }],
      },
      {
        kind: 'toolResult',
        id: `r${turn}`,
        callId: `c${turn}`,
        toolName: 'read',
        content: `${'line of code\n'.repeat(150)}ValueError: bad state in src/mod${turn}.py\n`,
        isError: false,
      },
      { kind: 'assistant', id: `f${turn}`, text: `Read mod${turn}.` },
    );
  }
  return items;
}

describe('placeholders of pruned outputs', () => {
  it('carry the tool name, the size and the paths, error lines and identifiers of the output', async () => {
    const result = await pruneToolResults({ protectRecentTokens: 0, minSavingsTokens: 0 }).apply(
      {
        transcript: session(2),
        reason: 'manual',
        budget: { maxTokens: 10_000, targetTokens: 100 },
      },
      { tokens, signal: signal() },
    );
    const placeholder = result.transcript[2];
    expect(placeholder?.kind === 'toolResult' && placeholder.content).toMatch(
      /^\[Output of read pruned: \d+ tokens/,
    );
    const content = placeholder?.kind === 'toolResult' ? placeholder.content : '';
    expect(content).toContain('src/mod0.py');
    expect(content).toContain('ValueError: bad state in src/mod0.py');
  });

  /** A booking call and its failed output, as tau-bench's airline tools report one. */
  function failedBooking(output: string): Item[] {
    return [
      { kind: 'user', id: 'u', content: 'Book the flights and pay with my gift cards.' },
      {
        kind: 'assistant',
        id: 'a',
        toolCalls: [{ id: 'c', name: 'book_reservation', arguments: '{"cabin":"business"}' }],
      },
      {
        kind: 'toolResult',
        id: 'r',
        callId: 'c',
        toolName: 'book_reservation',
        content: output,
        isError: true,
      },
    ];
  }
  const paymentError =
    'Error: Tool "book_reservation" failed: Error: payment amount does not add up, total price is 1203, but paid 833';
  const pruneAll = (transcript: readonly Item[]) =>
    pruneLargestToolResults({ targetTokens: 0 }).apply(
      { transcript, reason: 'manual', budget: { maxTokens: 1_000, targetTokens: 0 } },
      { tokens, signal: signal() },
    );

  it('quote the error lines as they read, beyond a sixth of the output', async () => {
    // The error line is a third of the output: the sixth share alone has no room for it.
    const output = `${paymentError}\n${'seat 12A held for passenger 1 on HAT023\n'.repeat(6)}`;
    const items = failedBooking(output);
    const result = await pruneAll(items);
    const placeholder = result.transcript[2];
    const content = placeholder?.kind === 'toolResult' ? placeholder.content : '';
    expect(content).toMatch(/^\[Failed output of book_reservation pruned/);
    expect(content).toContain(`"${paymentError}"`);
    // Still worth pruning: the copy saves more than a quarter of the output.
    expect(tokens.countItem(placeholder as Item)).toBeLessThan(
      tokens.countItem(items[2] as Item) * 0.75,
    );
  });

  it('leave an output that is mostly its error line whole, in every tier', async () => {
    const items = failedBooking(paymentError);
    const largest = await pruneAll(items);
    expect(largest.transcript[2]).toBe(items[2]);
    const structural = await pruneToolResults({
      protectRecentTokens: 0,
      minSavingsTokens: 0,
      minOutputTokens: 0,
    }).apply(
      {
        transcript: [...items, { kind: 'assistant', id: 'f', text: 'It failed.' }],
        reason: 'manual',
        budget: { maxTokens: 1_000, targetTokens: 0 },
      },
      { tokens, signal: signal() },
    );
    expect(structural.transcript[2]).toBe(items[2]);
  });

  it('keep at most four error lines of a large output, so pruning it still saves most', async () => {
    const lines = Array.from(
      { length: 200 },
      (_, index) => `Error: seat ${index} could not be held on flight HAT${100 + index}`,
    );
    const items = failedBooking(lines.join('\n'));
    const result = await pruneAll(items);
    const placeholder = result.transcript[2] as Item;
    const content = placeholder.kind === 'toolResult' ? placeholder.content : '';
    expect(content).toContain(`"${lines[3]}" (+196 more)`);
    expect(content).not.toContain(lines[4] as string);
    expect(tokens.countItem(placeholder)).toBeLessThan(tokens.countItem(items[2] as Item) / 6);
  });
});

describe('sizes derived from the budget', () => {
  it('summarizes in a 4k window with every default: no hand-tuned sizes', async () => {
    const trigger = contextWindowTrigger({ window: 4_096 });
    const compactor = createCompactor({ trigger, backend: extractiveSummarizer() });
    const outcome = await compactor.mutate({
      transcript: session(40),
      tokens,
      point: 'AfterTurnEnded',
      signal: signal(),
    });
    expect(outcome.dirty).toBe(true);
    const transcript = outcome.dirty ? outcome.transcript : [];
    expect(outcome.metadata?.['tier']).toBe('summary');
    expect(outcome.metadata?.['effective']).toBe(true);
    expect(validateTranscript(transcript)).toEqual([]);
    // The summary takes its share of the target (raised up to the whole of it when the
    // artifact trail needs the room, as summaryCapForTrail does), or what the kept part leaves
    // of it, and the result lands under the headroom line, so the next step does not compact
    // again.
    const budget = outcome.metadata?.['budget'] as CompactionBudget;
    const summary = transcript.find(isSummaryItem);
    const rest = transcript.filter((item) => item !== summary);
    const cap = Math.max(summaryCapFor(budget), budget.targetTokens);
    expect(summary && tokens.countItem(summary)).toBeLessThanOrEqual(
      Math.max(
        cap + tokens.countItem(createSummaryItem('')),
        budget.targetTokens - tokens.count(rest),
      ),
    );
    expect(tokens.count(transcript)).toBeLessThanOrEqual(headroomLine(budget));
  });
});

describe('the goal', () => {
  it('is recorded verbatim once and carried by every later summary; earlier requests are history', async () => {
    const strategy = summarizeOlder({ keepRecentTokens: 0 });
    const context = { tokens, backend: extractiveSummarizer(), signal: signal() };
    const budget = { maxTokens: 100_000, targetTokens: 100_000 };
    let transcript: readonly Item[] = session(3);
    for (let round = 0; round < 3; round += 1) {
      transcript = (await strategy.apply({ transcript, reason: 'manual', budget }, context))
        .transcript;
      const text = transcript.find(isSummaryItem)?.text ?? '';
      expect(recordedGoal(summaryBody({ kind: 'context', id: 's', text })), `round ${round}`).toBe(
        'Fix the crash in src/core/engine.py for order ORD-4417.',
      );
      expect(text).not.toMatch(/Latest request|Answer the latest request/);
      transcript = [
        ...transcript,
        ...session(2).map(
          (item) =>
            ({
              ...item,
              id: `${item.id}_${round}`,
              ...(item.kind === 'assistant' && item.toolCalls
                ? {
                    toolCalls: item.toolCalls.map((call) => ({
                      ...call,
                      id: `${call.id}_${round}`,
                    })),
                  }
                : {}),
              ...(item.kind === 'toolResult' ? { callId: `${item.callId}_${round}` } : {}),
            }) as Item,
        ),
      ];
    }
    expect(transcript.find(isSummaryItem)?.text).toContain(
      'Earlier request (answered): Go on (1).',
    );
  });
});

describe('summaries read originals', () => {
  it('the projection maps a pruned copy to the output it replaced, and summarizeOlder reads it', async () => {
    const items = session(3);
    const pruned = await pruneToolResults({ protectRecentTokens: 0, minSavingsTokens: 0 }).apply(
      { transcript: items, reason: 'manual', budget: { maxTokens: 10_000, targetTokens: 100 } },
      { tokens, signal: signal() },
    );
    const at = '2026-12-01T00:00:00.000Z';
    const events: SessionEvent[] = [
      { v: 1, seq: 1, at, type: 'items-appended', runId: 'r', items },
      {
        v: 1,
        seq: 2,
        at,
        type: 'transcript-replaced',
        runId: 'r',
        throughSeq: 1,
        view: buildReplacementView({
          previous: items,
          next: pruned.transcript,
          originOf: replacedItemId,
        }),
        reason: 'manual',
        tier: 'structural',
        strategies: ['pruneToolResults'],
        tokensBefore: 0,
        tokensAfter: 0,
      },
    ] as SessionEvent[];
    const projection = createProjection({ events });
    const placeholder = projection.items[2] as Item;
    expect(placeholder.id).not.toBe('r0');
    expect(projection.originalOf(placeholder.id)).toBe(items[2]);

    const seen: Item[] = [];
    const backend = extractiveSummarizer();
    await summarizeOlder({ keepRecentTokens: 0 }).apply(
      {
        transcript: projection.items,
        reason: 'manual',
        budget: { maxTokens: 100_000, targetTokens: 100_000 },
      },
      {
        tokens,
        signal: signal(),
        originalOf: (item) => projection.originalOf(item.id),
        backend: {
          ...backend,
          summarize: (request) => {
            seen.push(...request.transcript);
            return backend.summarize(request);
          },
        },
      },
    );
    expect(seen).toContain(items[2]);
    expect(seen.some((item) => item.id === placeholder.id)).toBe(false);
  });
});

describe('the emergency prune through the compactor', () => {
  it('folds the turns it drops into the summary: goal and errors survive a failing summarizer', async () => {
    const compactor = createCompactor({
      trigger: contextWindowTrigger({ window: 2_500 }),
      backend: {
        name: 'broken',
        maxInputTokens: 100_000,
        summarize: async () => {
          throw new Error('the summarizer is down');
        },
      },
    });
    const outcome = await compactor.mutate({
      transcript: session(40),
      tokens,
      point: 'AfterTurnEnded',
      signal: signal(),
    });
    expect(outcome.metadata?.['tier']).toBe('emergency');
    const transcript = outcome.dirty ? outcome.transcript : [];
    const text = transcript.find(isSummaryItem)?.text ?? '';
    expect(text).toContain('Fix the crash in src/core/engine.py for order ORD-4417.');
    // The newest turn folded into the summary keeps its error line; the cap cuts the oldest.
    const firstKept = transcript.find((item) => item.kind === 'user');
    const firstKeptTurn = Number(firstKept?.id.slice(1));
    expect(firstKeptTurn).toBeGreaterThan(1);
    expect(text).toContain(`ValueError: bad state in src/mod${firstKeptTurn - 1}.py`);
    // Errors are ranked (the artifact trail leads, the newest first): the cut drops the last.
    expect(text).toMatch(
      /## Errors seen\n(?:- .*\n)*- \(\d+ lines? cut; the session log has them all\)(?:\n\n## |$)/,
    );
    expect(validateTranscript(transcript)).toEqual([]);
  });
});

describe('measureCompactionQuality', () => {
  it('replays a real transcript through the loop and keeps the goal and every request valid', async () => {
    const fixture = loadTranscriptFixtures().find((entry) => entry.file.includes('rec052'));
    const messages = fixture?.messages ?? [];
    const line = Math.floor(tokens.count(fromChatMessages(messages)) * 0.3);
    const report = await measureCompactionQuality({
      name: 'rec052',
      messages,
      line,
      tokens,
      backend: extractiveSummarizer(),
    });
    expect(report.turnsCompleted).toBe(report.turns);
    expect(report.compactions).toBeGreaterThan(0);
    expect(report.goalKept).toBe(true);
    expect(report.invalidRequests).toBe(0);
    expect(report.identifiers.visible).toBe(report.identifiers.dropped);
    expect(report.emergencyPrunes * 4).toBeLessThanOrEqual(report.compactions);
  });
});

describe('the default compactor on every bundled transcript and the derived shapes', () => {
  // The bar of docs/quality.md, per replay; bench/quality.bench.ts reports the figures.
  // The derived shapes (docs/quality.md says how they are made) meet the bar at 30%; at 15%
  // two of them cannot, by the sizes that page gives.
  const replays = [
    ...[0.3, 0.15].flatMap((lineShare) =>
      loadTranscriptFixtures().map((fixture) => ({ lineShare, fixture })),
    ),
    ...loadDerivedTranscripts().map((fixture) => ({ lineShare: 0.3, fixture })),
  ];
  for (const { lineShare, fixture } of replays) {
    it(`keeps the work of ${fixture.file} at a line of ${lineShare * 100}%`, async () => {
      const line = Math.floor(tokens.count(fromChatMessages(fixture.messages)) * lineShare);
      const report = await measureCompactionQuality({
        name: fixture.file,
        messages: fixture.messages,
        line,
        tokens,
        backend: extractiveSummarizer(),
      });
      expect(report.failures).toEqual([]);
      expect(report.turnsCompleted).toBe(report.turns);
      expect(report.compactions).toBeGreaterThan(0);
      expect(report.goalKept).toBe(true);
      expect(report.invalidRequests).toBe(0);
      expect(report.emergencyPrunes * 4).toBeLessThanOrEqual(report.compactions);
      // Each at least 95%, paths and error lines apart.
      expect(report.paths.visible, JSON.stringify(report.paths.lost)).toBeGreaterThanOrEqual(
        Math.ceil(report.paths.dropped * 0.95),
      );
      expect(
        report.errorLines.visible,
        JSON.stringify(report.errorLines.lost),
      ).toBeGreaterThanOrEqual(Math.ceil(report.errorLines.dropped * 0.95));
      expect(
        report.identifiers.visible,
        JSON.stringify(report.identifiers.lost),
      ).toBeGreaterThanOrEqual(Math.ceil(report.identifiers.dropped * 0.9));
    });
  }
});

describe('extractive recall', () => {
  const calls = 25;
  function agentRun(): Item[] {
    const items: Item[] = [
      {
        kind: 'user',
        id: 'u',
        content: 'Book for user mia_li_3668, pay with credit_card_4421486; born 1990-04-05.',
      },
    ];
    for (let call = 0; call < calls; call += 1) {
      items.push(
        {
          kind: 'assistant',
          id: `a${call}`,
          toolCalls: [
            {
              id: `c${call}`,
              name: 'search',
              // A long argument first: ids after it must not be clipped away with it.
              arguments: JSON.stringify({
                note: 'x'.repeat(300),
                payment_id: `credit_card_${9_000_000 + call}`,
                amount: 7_310 + call,
              }),
            },
          ],
        },
        {
          kind: 'toolResult',
          id: `r${call}`,
          callId: `c${call}`,
          toolName: 'search',
          content:
            call === 3
              ? 'Traceback (most recent call last):\nmarshmallow.exceptions.error: bad precision\n'
              : call === 4
                ? 'Your proposed edit has introduced new syntax error(s).\n\nERRORS:\n- E999 IndentationError: unexpected indent\n'
                : 'ok',
          isError: false,
        },
      );
    }
    return items;
  }

  it('keeps lower-case module errors, lint failures and every id and number passed to tools, past the 240th character and the 20th call', async () => {
    const { text } = await extractiveSummarizer().summarize({
      transcript: agentRun(),
      signal: signal(),
    });
    expect(text).toContain('marshmallow.exceptions.error: bad precision');
    expect(text).toContain('E999 IndentationError: unexpected indent');
    for (const id of ['mia_li_3668', 'credit_card_4421486', '1990-04-05']) {
      expect(text).toContain(id);
    }
    for (let call = 0; call < calls; call += 1) {
      expect(text).toContain(`credit_card_${9_000_000 + call}`);
      expect(text).toContain(String(7_310 + call));
    }
  });
});
