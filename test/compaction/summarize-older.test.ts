import fc from 'fast-check';
import {
  AbortedError,
  type CompactionBackend,
  CompactionError,
  createTokenCounter,
  extractiveSummarizer,
  fromChatMessages,
  type Item,
  summarizeOlder,
  validateTranscript,
} from 'loopkeeper';
import {
  type CompactionContext,
  type CompactionRequest,
  createSummaryItem,
  isSummaryItem,
  parseSummarySections,
  SUMMARY_PREAMBLE,
  SUMMARY_SECTIONS,
  type SummaryRequest,
  summaryBody,
  summaryInputTokens,
  validateSummaryText,
} from 'loopkeeper/compaction';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { GOAL_LABEL, withGoal } from '../../src/compaction/summary-goal.js';
import { validTranscriptArbitrary } from '../support/arbitraries.js';
import { rejection } from '../support/rejection.js';
import { loadTranscriptFixtures } from '../support/transcripts.js';

interface RecordedCall {
  readonly items: readonly Item[];
  readonly previousSummary: string | undefined;
  readonly inputTokens: number;
  readonly text: string;
}

/** A backend that measures what each call is given, then answers with a small valid summary. */
function recordingBackend(maxInputTokens: number, tokens: TokenCounter) {
  const calls: RecordedCall[] = [];
  const backend: CompactionBackend = {
    name: 'recording',
    maxInputTokens,
    async summarize({ transcript, previousSummary }: SummaryRequest) {
      const seen = calls.reduce((total, call) => total + call.items.length, 0) + transcript.length;
      const text = [
        '## Goal',
        '- Keep the session going.',
        '## Decisions and constraints',
        '- None.',
        '## Progress',
        `- Chunk ${calls.length + 1}; ${seen} items summarized so far.`,
        '## Files and artifacts',
        '- None.',
        '## Errors seen',
        '- None.',
        '## Next step',
        '- Continue.',
      ].join('\n');
      calls.push({
        items: transcript,
        previousSummary,
        inputTokens: summaryInputTokens({ transcript, previousSummary, tokens }),
        text,
      });
      return { text };
    },
  };
  return { backend, calls };
}

/** The five real transcripts as one long session; call ids get a per-file prefix to stay unique. */
function concatenatedSession(): Item[] {
  return loadTranscriptFixtures().flatMap((fixture, file) =>
    fromChatMessages(fixture.messages).map((item): Item => {
      if (item.kind === 'toolResult') return { ...item, callId: `f${file}_${item.callId}` };
      if (item.kind === 'assistant' && item.toolCalls !== undefined) {
        return {
          ...item,
          toolCalls: item.toolCalls.map((call) => ({ ...call, id: `f${file}_${call.id}` })),
        };
      }
      return item;
    }),
  );
}

function request(transcript: readonly Item[]): CompactionRequest {
  return {
    transcript,
    reason: 'threshold',
    budget: { maxTokens: 1_000_000, targetTokens: 1_000_000 },
  };
}

function context(
  tokens: TokenCounter,
  backend?: CompactionBackend,
  signal = new AbortController().signal,
): CompactionContext {
  return backend === undefined ? { tokens, signal } : { tokens, backend, signal };
}

function validSummary(label: string): string {
  return `## Goal\n- ${label}\n## Decisions and constraints\n- None.\n## Progress\n- None.\n## Files and artifacts\n- None.\n## Errors seen\n- None.\n## Next step\n- None.`;
}

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await createTokenCounter();
});

describe('summarizeOlder', () => {
  it('summarizes input 5x the backend limit in chunks: no call exceeds it, each folds the summary before it forward', async () => {
    const goal = 'An earlier goal from before this session.';
    const earlier = createSummaryItem(validSummary(`${GOAL_LABEL} ${goal}`));
    const session = [earlier, ...concatenatedSession()];
    const keepRecentTokens = 2_000;
    // Find the part that will be summarized, then size the backend so that part is 5x its limit.
    const probe = recordingBackend(Number.POSITIVE_INFINITY, tokens);
    await summarizeOlder({ keepRecentTokens }).apply(
      request(session),
      context(tokens, probe.backend),
    );
    const partTokens = summaryInputTokens({ transcript: probe.calls[0]?.items ?? [], tokens });
    const limit = Math.floor(partTokens / 5);
    expect(partTokens).toBeGreaterThanOrEqual(5 * limit);

    const { backend, calls } = recordingBackend(limit, tokens);
    const result = await summarizeOlder({ keepRecentTokens }).apply(
      request(session),
      context(tokens, backend),
    );

    expect(calls.length).toBeGreaterThanOrEqual(5);
    for (const call of calls) expect(call.inputTokens).toBeLessThanOrEqual(limit);
    expect(calls[0]?.previousSummary).toBe(summaryBody(earlier));
    // Each call folds the one before it forward, with the recorded goal put back in front.
    calls.slice(1).forEach((call, index) => {
      expect(call.previousSummary).toBe(withGoal(calls[index]?.text ?? '', goal));
    });
    // Every item of the part reached the backend exactly once, in order.
    expect(calls.flatMap((call) => call.items.map((item) => item.id))).toEqual(
      probe.calls[0]?.items.map((item) => item.id),
    );

    const output = result.transcript;
    expect(validateTranscript(output)).toEqual([]);
    const first = output[0];
    expect(first !== undefined && isSummaryItem(first)).toBe(true);
    expect(first?.kind === 'context' && first.text.startsWith(SUMMARY_PREAMBLE)).toBe(true);
    // The last call's summary with the goal in front, its files and errors led by the
    // artifact trail of the items summarized.
    const body = first?.kind === 'context' ? summaryBody(first) : '';
    const expected = parseSummarySections(withGoal(calls.at(-1)?.text ?? '', goal));
    const sections = parseSummarySections(body);
    expect(sections.Goal).toBe(expected.Goal);
    // A section the backend left at "- None." is not sent: it carries no fact.
    for (const name of ['Decisions and constraints', 'Next step'] as const) {
      expect(sections[name]).toBe(expected[name] === '- None.' ? undefined : expected[name]);
    }
    expect(sections['Files and artifacts']).toMatch(/^- (?:created|edited|read|used|mentioned): /m);
    expect(output.filter((item) => item.kind === 'context' && isSummaryItem(item))).toHaveLength(1);
    expect(tokens.count(output)).toBeLessThan(tokens.count(session));
    expect(result.metadata).toMatchObject({
      calls: calls.length,
      foldedPreviousSummary: true,
      backend: 'recording',
    });
  });

  it('cuts a single item larger than the limit, keeping its head and tail, and says so', async () => {
    const huge = Array.from({ length: 3_000 }, (_, line) => `line ${line}: value ${line * 7}`).join(
      '\n',
    );
    const transcript: Item[] = [
      { kind: 'user', id: 'u1', content: 'Dump the table.' },
      {
        kind: 'assistant',
        id: 'a1',
        toolCalls: [{ id: 'c1', name: 'bash', arguments: '{"command":"dump"}' }],
      },
      {
        kind: 'toolResult',
        id: 't1',
        callId: 'c1',
        toolName: 'bash',
        content: huge,
        isError: false,
      },
      { kind: 'assistant', id: 'a2', text: 'Dumped.' },
      { kind: 'user', id: 'u2', content: 'Thanks, now count the rows.' },
      { kind: 'assistant', id: 'a3', text: 'There are 3000 rows.' },
    ];
    const limit = 2_000;
    expect(tokens.countText(huge)).toBeGreaterThan(3 * limit);
    const { backend, calls } = recordingBackend(limit, tokens);
    const result = await summarizeOlder({ keepRecentTokens: 50 }).apply(
      request(transcript),
      context(tokens, backend),
    );

    for (const call of calls) expect(call.inputTokens).toBeLessThanOrEqual(limit);
    const cut = calls.flatMap((call) => call.items).find((item) => item.id.startsWith('t1'));
    expect(cut?.kind === 'toolResult' && cut.content).toContain(
      'left out of this item for the summary',
    );
    expect(cut?.kind === 'toolResult' && cut.content.startsWith('line 0: value 0')).toBe(true);
    expect(cut?.kind === 'toolResult' && cut.content.endsWith('line 2999: value 20993')).toBe(true);
    expect(cut?.id).not.toBe('t1');
    expect(result.metadata).toHaveProperty('truncatedItems', 1);
    expect(result.transcript.map((item) => item.id).slice(1)).toEqual(['a2', 'u2', 'a3']);
  });

  it('keeps the latest request and the last exchange verbatim when a single long turn is summarized', async () => {
    const transcript: Item[] = [{ kind: 'user', id: 'u', content: 'Refactor every module.' }];
    for (let step = 0; step < 30; step += 1) {
      transcript.push(
        {
          kind: 'assistant',
          id: `a${step}`,
          toolCalls: [
            { id: `c${step}a`, name: 'edit', arguments: `{"path":"src/m${step}.ts"}` },
            { id: `c${step}b`, name: 'test', arguments: '{}' },
          ],
        },
        {
          kind: 'toolResult',
          id: `r${step}b`,
          callId: `c${step}b`,
          toolName: 'test',
          content: `${step} tests passed. `.repeat(30),
          isError: false,
        },
        {
          kind: 'toolResult',
          id: `r${step}a`,
          callId: `c${step}a`,
          toolName: 'edit',
          content: `edited src/m${step}.ts`,
          isError: false,
        },
      );
    }
    const result = await summarizeOlder({ keepRecentTokens: 0 }).apply(
      request(transcript),
      context(tokens, extractiveSummarizer()),
    );
    const ids = result.transcript.map((item) => item.id);
    expect(ids.slice(1)).toEqual(['u', 'a29', 'r29b', 'r29a']);
    expect(result.transcript[1]).toBe(transcript[0]);
    expect(validateTranscript(result.transcript)).toEqual([]);
    const summary = result.transcript[0];
    expect(summary?.kind === 'context' && summary.text).toContain('src/m0.ts');
    expect(result.metadata).toHaveProperty('keptLatestRequest', true);
  });

  it('keeps host context at the start and folds an earlier summary instead of summarizing it again', async () => {
    const old = createSummaryItem(validSummary('The original goal.'));
    const transcript: Item[] = [
      old,
      { kind: 'context', id: 'notes', name: 'memory', text: 'The user prefers tabs.' },
      { kind: 'user', id: 'u1', content: 'First question' },
      { kind: 'assistant', id: 'a1', text: 'First answer '.repeat(100) },
      { kind: 'user', id: 'u2', content: 'Second question' },
      { kind: 'assistant', id: 'a2', text: 'Second answer' },
    ];
    const { backend, calls } = recordingBackend(10_000, tokens);
    const result = await summarizeOlder({ keepRecentTokens: 20 }).apply(
      request(transcript),
      context(tokens, backend),
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]?.previousSummary).toBe(summaryBody(old));
    expect(calls[0]?.items.map((item) => item.id)).toEqual(['u1', 'a1']);
    expect(result.transcript.map((item) => item.id).slice(1)).toEqual(['notes', 'u2', 'a2']);
  });

  /**
   * `summarizeOlder()` with the extractive backend on `transcript` at every target of `targets`
   * (the line 1.4 times the target): each compacted result with its headroom line and the room
   * that was left under it for the summary's text.
   */
  async function underHeadroom(
    transcript: readonly Item[],
    targets: { readonly from: number; readonly to: number; readonly step: number },
  ) {
    const frame = tokens.countItem(createSummaryItem(''));
    const results: { target: number; output: readonly Item[]; headroom: number; room: number }[] =
      [];
    for (
      let targetTokens = targets.from;
      targetTokens <= targets.to;
      targetTokens += targets.step
    ) {
      const maxTokens = Math.floor(targetTokens * 1.4);
      const headroom = maxTokens - Math.floor((maxTokens - targetTokens) / 2);
      const result = await summarizeOlder().apply(
        { transcript, reason: 'threshold', budget: { maxTokens, targetTokens } },
        context(tokens, extractiveSummarizer()),
      );
      if (result.transcript === transcript) continue;
      const room = headroom - tokens.count(result.transcript.slice(1)) - frame;
      results.push({ target: targetTokens, output: result.transcript, headroom, room });
    }
    return results;
  }

  it('on a small budget, fits the summary under the headroom line rather than at the floor above it', async () => {
    // Older turns full of facts, then a latest request and its newest exchange.
    const older: Item[] = Array.from({ length: 12 }, (_, index): Item[] => [
      {
        kind: 'user',
        id: `u${index}`,
        content: `Fix src/mod${index}.py for order ORD-${4400 + index}.`,
      },
      {
        kind: 'assistant',
        id: `a${index}`,
        text: `Fixed src/mod${index}.py; order ORD-${4400 + index} ships.`,
      },
    ]).flat();
    const transcript: Item[] = [
      ...older,
      { kind: 'user', id: 'u-latest', content: 'Now check src/final.py for order ORD-9999.' },
      { kind: 'assistant', id: 'a-latest', text: 'Checked src/final.py: order ORD-9999 is fine.' },
    ];
    // Budgets where the room under the headroom line (half-way between the target and the line)
    // is below the 80-token floor but still room for a heading and a line or two.
    const narrow = (await underHeadroom(transcript, { from: 120, to: 400, step: 4 })).filter(
      ({ room }) => room >= 48 && room < 80,
    );
    expect(narrow.length).toBeGreaterThan(0);
    for (const { target, output, headroom } of narrow) {
      expect(validateTranscript(output)).toEqual([]);
      expect(tokens.count(output), `target ${target}`).toBeLessThanOrEqual(headroom);
    }
  });

  it('lands a default-sized summary at or under the headroom line whenever the room under it holds one', async () => {
    // Many older turns full of facts: the artifact trail asks for the room up to the line.
    const older: Item[] = Array.from({ length: 30 }, (_, index): Item[] => [
      {
        kind: 'user',
        id: `u${index}`,
        content: `Fix src/pkg/mod_${index}.py for order ORD-${7100 + index} (ticket T-${index}9).`,
      },
      {
        kind: 'assistant',
        id: `a${index}`,
        text: `Fixed src/pkg/mod_${index}.py: ValueError: total ${index} was negative.`,
      },
    ]).flat();
    const transcript: Item[] = [
      ...older,
      { kind: 'user', id: 'u-latest', content: 'Now check src/final.py for order ORD-9999.' },
      // A long newest answer: the kept part leaves the summary little room under the line.
      {
        kind: 'assistant',
        id: 'a-latest',
        text: 'Checked src/final.py: order ORD-9999 is fine. '.repeat(6),
      },
    ];
    const roomy = (await underHeadroom(transcript, { from: 150, to: 900, step: 3 })).filter(
      ({ room }) => room >= 48,
    );
    expect(roomy.length).toBeGreaterThan(100);
    for (const { target, output, headroom } of roomy) {
      expect(tokens.count(output), `target ${target}`).toBeLessThanOrEqual(headroom);
    }
  });

  it('in a single-turn run, whose goal is the kept request, fits a summary of a heading and a line under the headroom line', async () => {
    // One request, then steps of tool calls: the summary carries no goal, only the trail.
    const steps: Item[] = Array.from({ length: 10 }, (_, index): Item[] => [
      {
        kind: 'assistant',
        id: `a${index}`,
        toolCalls: [
          { id: `c${index}`, name: 'bash', arguments: `{"command":"cat src/mod${index}.py"}` },
        ],
      },
      {
        kind: 'toolResult',
        id: `r${index}`,
        callId: `c${index}`,
        toolName: 'bash',
        content: `def handler_${index}(order): return order.total * ${index + 2}`,
        isError: false,
      },
    ]).flat();
    const transcript: Item[] = [
      { kind: 'user', id: 'u1', content: 'Find why src/mod9.py rounds totals down.' },
      ...steps,
    ];
    // Below 48 tokens of room: too little for a goal, enough for a heading and a line.
    const narrow = (await underHeadroom(transcript, { from: 60, to: 300, step: 2 })).filter(
      ({ room }) => room >= 24 && room < 48,
    );
    expect(narrow.length).toBeGreaterThan(0);
    for (const { target, output, headroom } of narrow) {
      expect(output[1]?.id).toBe('u1');
      expect(validateTranscript(output)).toEqual([]);
      expect(tokens.count(output), `target ${target}`).toBeLessThanOrEqual(headroom);
    }
  });

  it('leaves a transcript alone when everything fits in the kept tail', async () => {
    const transcript: Item[] = [
      { kind: 'user', id: 'u1', content: 'hi' },
      { kind: 'assistant', id: 'a1', text: 'hello' },
    ];
    const { backend, calls } = recordingBackend(10_000, tokens);
    const result = await summarizeOlder().apply(request(transcript), context(tokens, backend));
    expect(result.transcript).toBe(transcript);
    expect(result.metadata).toHaveProperty('skipped', 'nothing_to_summarize');
    expect(calls).toHaveLength(0);
  });

  describe('failures', () => {
    const transcript: Item[] = [
      { kind: 'user', id: 'u1', content: 'Old question' },
      { kind: 'assistant', id: 'a1', text: 'Old answer '.repeat(200) },
      { kind: 'user', id: 'u2', content: 'New question' },
      { kind: 'assistant', id: 'a2', text: 'New answer' },
    ];
    const run = (backend: CompactionBackend | undefined, options = {}, signal?: AbortSignal) =>
      rejection(
        summarizeOlder({ keepRecentTokens: 10, ...options }).apply(
          request(transcript),
          context(tokens, backend, signal),
        ),
      );
    const backendOf = (summarize: CompactionBackend['summarize']): CompactionBackend => ({
      name: 'faulty',
      maxInputTokens: 100_000,
      summarize,
    });

    it('needs a backend', async () => {
      const error = await run(undefined);
      expect(CompactionError.isInstance(error) && error.code).toBe('no_backend');
    });

    it('reports a throwing backend as a CompactionError with the cause attached', async () => {
      const cause = new Error('model unavailable');
      const error = await run(backendOf(async () => Promise.reject(cause)));
      expect(CompactionError.isInstance(error) && error.code).toBe('summary_failed');
      expect((error as Error).cause).toBe(cause);
    });

    it('ends a backend that hangs past the timeout, even one that ignores its signal', async () => {
      let sawSignal: AbortSignal | undefined;
      const error = await run(
        backendOf(({ signal }) => {
          sawSignal = signal;
          return new Promise(() => undefined);
        }),
        { timeoutMs: 30 },
      );
      expect(CompactionError.isInstance(error) && error.code).toBe('summary_timeout');
      expect(sawSignal?.aborted).toBe(true);
    });

    it('rejects empty and sectionless summaries', async () => {
      for (const text of ['', 'Just prose, no sections.', '## Goal\n- only one section']) {
        const error = await run(backendOf(async () => ({ text })));
        expect(CompactionError.isInstance(error) && error.code, text).toBe('summary_rejected');
      }
    });

    it('turns an abort of the caller into an AbortedError, not a summary failure', async () => {
      const controller = new AbortController();
      const pending = run(
        backendOf(() => new Promise(() => undefined)),
        {},
        controller.signal,
      );
      controller.abort(new Error('host abort'));
      const error = await pending;
      expect(AbortedError.isInstance(error)).toBe(true);
    });
  });

  it('gives a backend without an input limit every older item in one call, without rendering the input to count it', async () => {
    const session = concatenatedSession();
    const { backend, calls } = recordingBackend(Number.POSITIVE_INFINITY, tokens);
    const counted: string[] = [];
    const watched: TokenCounter = {
      ...tokens,
      countText: (text) => {
        counted.push(text);
        return tokens.countText(text);
      },
    };
    // A previous summary to fold forward, which a limited backend would measure first.
    const withSummary = [createSummaryItem(validSummary('earlier work')), ...session];
    const result = await summarizeOlder({ keepRecentTokens: 2_000 }).apply(
      request(withSummary),
      context(watched, backend),
    );
    expect(calls).toHaveLength(1);
    // Every item not kept went to that one call (the kept tail and the new summary make the output).
    expect((calls[0]?.items.length ?? 0) + result.transcript.length - 1).toBe(session.length);
    expect(calls[0]?.previousSummary).toContain('earlier work');
    expect(result.metadata).toMatchObject({ calls: 1 });
    // Counting the summary written is fine; the rendered input (quoted items) is never counted.
    expect(counted.filter((text) => /\] (?:user said|result of tool)/.test(text))).toEqual([]);
  });

  it('property: output validates, never grows, keeps the latest request and leads with one summary; no call exceeds its limit', async () => {
    await fc.assert(
      fc.asyncProperty(
        validTranscriptArbitrary({ maxTurns: 5 }),
        fc.integer({ min: 600, max: 4_000 }),
        fc.integer({ min: 0, max: 1_500 }),
        async (transcript, limit, keepRecentTokens) => {
          // A fresh counter per run: generated ids repeat across runs with different content.
          const counter = await createTokenCounter();
          const extractive = extractiveSummarizer({ maxInputTokens: limit });
          const sizes: number[] = [];
          const backend: CompactionBackend = {
            name: 'measured-extractive',
            maxInputTokens: limit,
            summarize(summaryRequest) {
              sizes.push(summaryInputTokens({ ...summaryRequest, tokens: counter }));
              return extractive.summarize(summaryRequest);
            },
          };
          const result = await summarizeOlder({ keepRecentTokens }).apply(
            request(transcript),
            context(counter, backend),
          );
          const output = result.transcript;
          expect(validateTranscript(output)).toEqual([]);
          expect(counter.count(output)).toBeLessThanOrEqual(counter.count(transcript));
          for (const size of sizes) expect(size).toBeLessThanOrEqual(limit);
          const latestUser = transcript.findLast((item) => item.kind === 'user');
          if (latestUser !== undefined) expect(output).toContain(latestUser);
          if (output !== transcript) {
            const first = output[0];
            expect(first !== undefined && isSummaryItem(first)).toBe(true);
            expect(output.filter(isSummaryItem)).toHaveLength(1);
            if (first?.kind === 'context') {
              // The summary sent holds the fixed sections that have something in them, in
              // order, and no heading without a line under it; with no fact at all, the six
              // headings alone (a valid summary).
              const body = summaryBody(first);
              const headings = [...body.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
              if (headings.length === SUMMARY_SECTIONS.length) {
                expect(validateSummaryText(body)).toBeTruthy();
              } else {
                expect(headings.length).toBeGreaterThan(0);
                expect(headings).toEqual(
                  SUMMARY_SECTIONS.filter((name) => headings.includes(name)),
                );
                expect(body).not.toMatch(/^## .+\n(?:\n|## |$)/m);
              }
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
