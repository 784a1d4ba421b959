import {
  AbortedError,
  COMPACTION_SUMMARY_NAME,
  type CompactionStrategy,
  ConfigError,
  createTokenCounter,
  dropFailedToolResults,
  dropReasoning,
  emergencyPrune,
  type Item,
  keepRecent,
  pipeline,
  pruneToolResults,
  toChatMessages,
  validateTranscript,
} from 'loopkeeper';
import {
  type CompactionContext,
  type CompactionRequest,
  createSummaryItem,
  emergencyPruneTranscript,
  isSummaryItem,
  pruneLargestToolResults,
} from 'loopkeeper/compaction';
import type { TokenCounter } from 'loopkeeper/tokens';
import type { AssistantItem, ToolResultItem } from 'loopkeeper/transcript';
import { beforeAll, describe, expect, it } from 'vitest';
import { replacedItemId } from '../../src/compaction/helpers/derived-item.js';
import { assistant, context, result, user } from '../support/items.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await createTokenCounter();
});

const big = (label: string, lines = 400) => `${label}: lorem ipsum dolor sit amet\n`.repeat(lines);

function run(
  strategy: CompactionStrategy,
  transcript: readonly Item[],
  budget = { maxTokens: 1_000_000, targetTokens: 0 },
  signal = new AbortController().signal,
) {
  const request: CompactionRequest = { transcript, reason: 'manual', budget };
  const context: CompactionContext = { tokens, signal };
  return strategy.apply(request, context);
}

const ids = (items: readonly Item[]) => items.map((item) => item.id);

describe('dropReasoning', () => {
  const transcript: Item[] = [
    user('u1'),
    assistant('a1', { reasoning: 'think', calls: ['c1'] }),
    result('r1', 'c1', { content: 'ok' }),
    assistant('a2', { reasoning: 'only thoughts' }),
    assistant('a3', { text: 'done', reasoning: 'why' }),
    user('u2'),
    assistant('a4', { text: 'working', reasoning: 'current thoughts' }),
  ];

  it('strips reasoning before the latest turn and drops assistants left empty', async () => {
    const { transcript: output, metadata } = await run(dropReasoning(), transcript);
    expect(validateTranscript(output)).toEqual([]);
    expect(output.map((item) => item.kind)).toEqual([
      'user',
      'assistant',
      'toolResult',
      'assistant',
      'user',
      'assistant',
    ]);
    const stripped = output.filter((item): item is AssistantItem => item.kind === 'assistant');
    expect(stripped[0]?.reasoning).toBeUndefined();
    expect(stripped[0]?.toolCalls?.[0]?.id).toBe('c1');
    expect(stripped[1]).toMatchObject({ text: 'done' });
    expect(stripped[1]?.reasoning).toBeUndefined();
    expect(stripped[2]).toBe(transcript[6]);
    expect(metadata).toMatchObject({ itemsRemoved: 1, itemsChanged: 2 });
  });

  it('optionally drops items left empty, as the seed drop_empty_items (default true)', async () => {
    const { transcript: output, metadata } = await run(
      dropReasoning({ dropEmpty: false }),
      transcript,
    );
    expect(validateTranscript(output)).toEqual([]);
    expect(output).toHaveLength(transcript.length);
    // a2 held only reasoning: it stays where it was, with empty text and a fresh id.
    expect(output[3]).toMatchObject({ kind: 'assistant', text: '' });
    expect(output[3]).not.toHaveProperty('reasoning');
    expect(replacedItemId(output[3] as Item)).toBe('a2');
    expect(toChatMessages(output)[3]).toEqual({ role: 'assistant', content: '' });
    expect(metadata).toMatchObject({ itemsRemoved: 0, itemsChanged: 3 });
  });

  it('gives changed items fresh ids that remember the original', async () => {
    const { transcript: output } = await run(dropReasoning(), transcript);
    const changed = output[1] as Item;
    expect(changed.id).not.toBe('a1');
    expect(replacedItemId(changed)).toBe('a1');
    expect(output[0]).toBe(transcript[0]);
  });

  it('strips the latest turn too with keepLastTurn: false', async () => {
    const { transcript: output } = await run(dropReasoning({ keepLastTurn: false }), transcript);
    expect(output.some((item) => item.kind === 'assistant' && item.reasoning !== undefined)).toBe(
      false,
    );
  });

  it('returns the input itself when there is no reasoning to strip', async () => {
    const plain = [user('u1'), assistant('a1', { text: 'hi' })];
    const { transcript: output, metadata } = await run(dropReasoning(), plain);
    expect(output).toBe(plain);
    expect(metadata).toMatchObject({ skipped: 'no_reasoning' });
  });

  it('never mutates its input', async () => {
    const frozen = Object.freeze(transcript.map((item) => Object.freeze({ ...item })));
    await run(dropReasoning({ keepLastTurn: false }), frozen);
    expect(frozen[1]).toMatchObject({ reasoning: [{ text: 'think' }] });
  });
});

describe('dropFailedToolResults', () => {
  it('removes a failed result with its call, keeping the rest of a parallel batch', async () => {
    const transcript: Item[] = [
      user('u1'),
      assistant('a1', { calls: ['c1', 'c2'] }),
      result('r1', 'c1', { content: 'Error: no such file', isError: true }),
      result('r2', 'c2', { content: 'contents' }),
      assistant('a2', { calls: ['c3'] }),
      result('r3', 'c3', { content: 'Error: denied', isError: true }),
      assistant('a3', { text: 'tried', calls: ['c4'] }),
      result('r4', 'c4', { content: 'Error: again', isError: true }),
      user('u2'),
    ];
    const { transcript: output, metadata } = await run(dropFailedToolResults(), transcript);
    expect(validateTranscript(output)).toEqual([]);
    expect(output.map((item) => item.kind)).toEqual([
      'user',
      'assistant',
      'toolResult',
      'assistant',
      'user',
    ]);
    expect((output[1] as AssistantItem).toolCalls?.map((call) => call.id)).toEqual(['c2']);
    expect(output[2]).toBe(transcript[3]);
    expect(output[3]).toMatchObject({ kind: 'assistant', text: 'tried' });
    expect((output[3] as AssistantItem).toolCalls).toBeUndefined();
    expect(metadata).toMatchObject({ itemsRemoved: 4, itemsChanged: 2, callsRemoved: 3 });
  });

  it('optionally drops items left empty, as the seed drop_empty_items (default true)', async () => {
    const transcript: Item[] = [
      user('u1'),
      assistant('a1', { calls: ['c1'] }),
      result('r1', 'c1', { content: 'Error: denied', isError: true }),
      assistant('a2', { text: 'gave up' }),
      user('u2'),
    ];
    const dropped = await run(dropFailedToolResults(), transcript);
    expect(ids(dropped.transcript)).toEqual(['u1', 'a2', 'u2']);
    const kept = await run(dropFailedToolResults({ dropEmpty: false }), transcript);
    expect(validateTranscript(kept.transcript)).toEqual([]);
    expect(kept.transcript.map((item) => item.kind)).toEqual([
      'user',
      'assistant',
      'assistant',
      'user',
    ]);
    expect(kept.transcript[1]).toMatchObject({ kind: 'assistant', text: '' });
    expect(kept.transcript[1]).not.toHaveProperty('toolCalls');
    expect(toChatMessages(kept.transcript)[1]).toEqual({ role: 'assistant', content: '' });
    expect(kept.metadata).toMatchObject({ itemsRemoved: 1, itemsChanged: 1, callsRemoved: 1 });
  });

  it('leaves failures in the latest user turn for the model to act on', async () => {
    const transcript: Item[] = [
      user('u1'),
      assistant('a1', { calls: ['c1'] }),
      result('r1', 'c1', { content: 'Error: boom', isError: true }),
    ];
    const { transcript: output, metadata } = await run(dropFailedToolResults(), transcript);
    expect(output).toBe(transcript);
    expect(metadata).toMatchObject({ skipped: 'no_failed_results' });
  });
});

describe('pruneToolResults', () => {
  const transcript: Item[] = [
    user('u1'),
    assistant('a1', { calls: ['c1', 'c2'] }),
    result('r1', 'c1', { content: big('first') }),
    result('r2', 'c2', { content: big('second'), isError: true }),
    assistant('a2', { text: 'read them' }),
    user('u2'),
    assistant('a3', { calls: ['c3'] }),
    result('r3', 'c3', { content: big('third') }),
  ];

  it('replaces old output with a placeholder that says its size and to re-run the tool', async () => {
    const strategy = pruneToolResults({ protectRecentTokens: 100, minSavingsTokens: 0 });
    const { transcript: output, metadata } = await run(strategy, transcript);
    expect(validateTranscript(output)).toEqual([]);
    const pruned = output[2] as ToolResultItem;
    const size = tokens.countItem(transcript[2] as Item);
    expect(pruned.content).toContain(`${size} tokens`);
    expect(pruned.content).toContain(`${big('first').length} characters`);
    expect(pruned.content).toMatch(/re-run the tool/i);
    expect(pruned).toMatchObject({ callId: 'c1', toolName: 'bash', isError: false });
    expect(output[3]).toMatchObject({ callId: 'c2', isError: true });
    expect(replacedItemId(pruned)).toBe('r1');
    expect(metadata).toMatchObject({ itemsChanged: 2, itemsRemoved: 0 });
    expect(metadata).toMatchObject({ tokensSaved: expect.toSatisfy((value: number) => value > 0) });
  });

  it('never prunes results the model has not read yet, even outside the protected tail', async () => {
    const strategy = pruneToolResults({ protectRecentTokens: 0, minSavingsTokens: 0 });
    const { transcript: output } = await run(strategy, transcript);
    expect(output[7]).toBe(transcript[7]);
  });

  it('protects the recent tail counted in tokens', async () => {
    const strategy = pruneToolResults({ protectRecentTokens: 1_000_000, minSavingsTokens: 0 });
    const { transcript: output, metadata } = await run(strategy, transcript);
    expect(output).toBe(transcript);
    expect(metadata).toMatchObject({ skipped: 'nothing_to_prune' });
  });

  it('skips when the saving is below minSavingsTokens', async () => {
    const strategy = pruneToolResults({ protectRecentTokens: 100, minSavingsTokens: 1_000_000 });
    const { transcript: output, metadata } = await run(strategy, transcript);
    expect(output).toBe(transcript);
    expect(metadata).toMatchObject({ skipped: 'below_min_savings' });
    expect(metadata).toMatchObject({
      potentialSavingsTokens: expect.toSatisfy((value: number) => value > 0),
    });
  });

  it('leaves outputs under minOutputTokens whole and writes no placeholder for them', async () => {
    const small = [
      user('u1'),
      assistant('a1', { calls: ['c1', 'c2'] }),
      result('r1', 'c1', { content: 'exit code 0, wrote build/out.js' }),
      result('r2', 'c2', { content: big('large') }),
      assistant('a2', { text: 'next' }),
      user('u2'),
    ];
    const smallSize = tokens.countItem(small[2] as Item);
    const largeSize = tokens.countItem(small[3] as Item);
    let written = 0;
    const strategy = pruneToolResults({
      protectRecentTokens: 0,
      minSavingsTokens: 0,
      minOutputTokens: smallSize + 1,
      placeholder: ({ callId }) => {
        written += 1;
        return `[pruned ${callId}]`;
      },
    });
    const { transcript: output, metadata } = await run(strategy, small);
    expect(output[2]).toBe(small[2]);
    expect(output[3]).toMatchObject({ content: '[pruned c2]' });
    expect(written).toBe(1);
    expect(metadata).toMatchObject({ itemsChanged: 1 });

    // At exactly its size an output is eligible again.
    const atSize = await run(
      pruneToolResults({
        protectRecentTokens: 0,
        minSavingsTokens: 0,
        minOutputTokens: smallSize,
        placeholder: '[pruned]',
      }),
      small,
    );
    expect(atSize.metadata).toMatchObject({ itemsChanged: 2 });
    expect(largeSize).toBeGreaterThan(smallSize);
  });

  it('derives minOutputTokens from the target: 2% of it, at most 100', async () => {
    const small = [
      user('u1'),
      assistant('a1', { calls: ['c1'] }),
      result('r1', 'c1', { content: 'short output '.repeat(6) }),
      assistant('a2', { text: 'next' }),
      user('u2'),
    ];
    const size = tokens.countItem(small[2] as Item);
    const strategy = pruneToolResults({ protectRecentTokens: 0, minSavingsTokens: 0 });
    // A target whose 2% is just above the output's size leaves it whole ...
    const above = await run(strategy, small, {
      maxTokens: 1_000_000,
      targetTokens: (size + 1) * 50,
    });
    expect(above.metadata).toMatchObject({ skipped: 'nothing_to_prune' });
    // ... and however large the target, an output of 100 tokens or more is eligible.
    const large = [
      ...small.slice(0, 2),
      result('r1', 'c1', { content: big('x', 20) }),
      ...small.slice(3),
    ];
    expect(tokens.countItem(large[2] as Item)).toBeGreaterThanOrEqual(100);
    const capped = await run(strategy, large, { maxTokens: 10_000_000, targetTokens: 1_000_000 });
    expect(capped.metadata).toMatchObject({ itemsChanged: 1 });
  });

  it('is idempotent, also with a placeholder that would shrink again if re-pruned', async () => {
    const strategy = pruneToolResults({
      protectRecentTokens: 100,
      minSavingsTokens: 0,
      // Pruning this placeholder once more would save tokens, so only the pruned mark stops it.
      placeholder: ({ tokens: size }) => 'gone '.repeat(Math.ceil(Math.log2(size + 1))),
    });
    const once = await run(strategy, transcript);
    expect(once.transcript[2]).toMatchObject({ content: expect.stringMatching(/^gone gone/) });
    const twice = await run(strategy, once.transcript);
    expect(twice.transcript).toBe(once.transcript);
  });

  it('leaves an output whole when its placeholder would save less than a quarter of it', async () => {
    const keeping = (share: number) =>
      pruneToolResults({
        protectRecentTokens: 100,
        minSavingsTokens: 0,
        placeholder: ({ content }) => content.slice(0, Math.floor(content.length * share)),
      });
    const nearlyAll = await run(keeping(0.85), transcript);
    expect(nearlyAll.transcript[2]).toBe(transcript[2]);
    const half = await run(keeping(0.5), transcript);
    const first = big('first');
    expect(half.transcript[2]).toMatchObject({ content: first.slice(0, first.length / 2) });
  });

  it('refuses negative options with a ConfigError', () => {
    expect(() => pruneToolResults({ protectRecentTokens: -1 })).toThrow(ConfigError);
    expect(() => pruneToolResults({ minSavingsTokens: Number.NaN })).toThrow(ConfigError);
    expect(() => pruneToolResults({ minOutputTokens: -5 })).toThrow(ConfigError);
  });
});

describe('pruneLargestToolResults', () => {
  it('prunes the largest outputs first, anywhere, until under the target', async () => {
    const transcript: Item[] = [
      user('u1'),
      assistant('a1', { calls: ['c1', 'c2'] }),
      result('r1', 'c1', { content: big('small', 20) }),
      result('r2', 'c2', { content: big('medium', 200) }),
      user('u2'),
      assistant('a2', { calls: ['c3'] }),
      result('r3', 'c3', { content: big('huge', 800) }),
    ];
    const total = tokens.count(transcript);
    const hugeSize = tokens.countItem(transcript[6] as Item);
    const targetTokens = total - hugeSize + 200;
    const { transcript: output, metadata } = await run(pruneLargestToolResults(), transcript, {
      maxTokens: total,
      targetTokens,
    });
    expect(validateTranscript(output)).toEqual([]);
    expect(output[6]).not.toBe(transcript[6]);
    expect(output[3]).toBe(transcript[3]);
    expect(output[2]).toBe(transcript[2]);
    expect(metadata).toMatchObject({ itemsChanged: 1, reachedTarget: true });
    expect(tokens.count(output)).toBeLessThanOrEqual(targetTokens);
  });

  it('does nothing when already under the target', async () => {
    const transcript = [user('u1')];
    const { transcript: output } = await run(pruneLargestToolResults(), transcript, {
      maxTokens: 100,
      targetTokens: 100,
    });
    expect(output).toBe(transcript);
  });
});

describe('keepRecent', () => {
  const transcript: Item[] = [
    context('s', 'summary of before', COMPACTION_SUMMARY_NAME),
    user('u1'),
    assistant('a1', { text: 'hello' }),
    context('m', 'memory note'),
    user('u2'),
    assistant('a2', { calls: ['c1', 'c2'] }),
    result('r1', 'c1', { content: 'one' }),
    result('r2', 'c2', { content: 'two' }),
    assistant('a3', { text: 'done' }),
  ];

  it('moves a cut that would split a parallel batch back to the batch start', async () => {
    const { transcript: output, metadata } = await run(keepRecent({ items: 3 }), transcript);
    expect(validateTranscript(output)).toEqual([]);
    expect(ids(output)).toEqual(['s', 'm', 'u2', 'a2', 'r1', 'r2', 'a3']);
    expect(metadata).toMatchObject({ itemsRemoved: 2, cutExpandedBy: 1 });
  });

  it('keeps the latest user item in front of the tail when the cut falls inside its turn', async () => {
    const { transcript: output } = await run(keepRecent({ items: 1, preserve: [] }), transcript);
    expect(ids(output)).toEqual(['u2', 'a3']);
  });

  it('keeps the last N non-preserved items plus every preserved one, as the seed KeepRecentStrategy', async () => {
    const withNote: Item[] = [
      user('u1'),
      assistant('a1', { text: 'first' }),
      assistant('a2', { text: 'second' }),
      context('m', 'memory note'),
      assistant('a3', { text: 'third' }),
    ];
    const { transcript: output, metadata } = await run(keepRecent({ items: 2 }), withNote);
    // The note in the tail does not use up one of the two: a2 and a3 stay, u1 as the request.
    expect(ids(output)).toEqual(['u1', 'a2', 'm', 'a3']);
    expect(metadata).toMatchObject({ itemsRemoved: 1 });
  });

  it('keeps preserved kinds wherever they are', async () => {
    const { transcript: output } = await run(
      keepRecent({ items: 0, preserve: ['context', 'user'] }),
      transcript,
    );
    expect(ids(output)).toEqual(['s', 'u1', 'm', 'u2']);
  });

  it('keeps a whole tool exchange when a preserved kind is inside it', async () => {
    const { transcript: output } = await run(
      keepRecent({ items: 0, preserve: ['toolResult'] }),
      transcript,
    );
    expect(validateTranscript(output)).toEqual([]);
    expect(ids(output)).toEqual(['u2', 'a2', 'r1', 'r2']);
  });

  it('counts the tail in tokens', async () => {
    const lastTwo =
      tokens.countItem(transcript[7] as Item) + tokens.countItem(transcript[8] as Item);
    const { transcript: output } = await run(
      keepRecent({ tokens: lastTwo, preserve: [] }),
      transcript,
    );
    expect(ids(output)).toEqual(['u2', 'a2', 'r1', 'r2', 'a3']);
  });

  it('refuses options that are not exactly one count, or unknown kinds', () => {
    expect(() => keepRecent({} as never)).toThrow(ConfigError);
    expect(() => keepRecent({ items: 2, tokens: 3 } as never)).toThrow(ConfigError);
    expect(() => keepRecent({ items: 1.5 })).toThrow(ConfigError);
    expect(() => keepRecent({ tokens: -1 })).toThrow(ConfigError);
    expect(() => keepRecent({ items: 1, preserve: ['summary' as never] })).toThrow(ConfigError);
  });
});

describe('emergencyPrune', () => {
  const turn = (n: number, size: number): Item[] => [
    user(`u${n}`),
    assistant(`a${n}`, { calls: [`c${n}`] }),
    result(`r${n}`, `c${n}`, { content: big(`turn ${n}`, size) }),
    assistant(`f${n}`, { text: `answer ${n}` }),
  ];
  const transcript: Item[] = [
    context('s', 'the story so far', COMPACTION_SUMMARY_NAME),
    context('notes', big('host notes', 5)),
    ...turn(1, 50),
    ...turn(2, 50),
    ...turn(3, 50),
  ];
  const measure = (items: readonly Item[]) => tokens.count(items);

  it('keeps the newest whole turns that fit plus the leading context', async () => {
    const maxTokens = measure([...transcript.slice(0, 2), ...transcript.slice(6)]);
    const outcome = emergencyPruneTranscript({ transcript, tokens, maxTokens });
    expect(ids(outcome.transcript)).toEqual(['s', 'notes', ...ids(transcript.slice(6))]);
    expect(outcome).toMatchObject({ fits: true, turnsKept: 2, turnsDropped: 1, keptSummary: true });
    expect(validateTranscript(outcome.transcript)).toEqual([]);
  });

  it('keeps the summary in front of the latest turn even when both do not fit (the seed keeps the summary marker)', async () => {
    const maxTokens = measure(transcript.slice(10));
    const outcome = emergencyPruneTranscript({ transcript, tokens, maxTokens });
    expect(ids(outcome.transcript)).toEqual(['s', ...ids(transcript.slice(10))]);
    expect(outcome).toMatchObject({ fits: false, keptSummary: true, leadingContextDropped: 1 });
    expect(outcome.summaryTokens).toBeGreaterThan(0);
  });

  it('cuts a large summary section by section, goal, files and errors last, to fit beside the latest turn', async () => {
    const body = [
      '## Goal',
      '- First request (verbatim): Fix the failing build in src/app/main.ts.',
      '## Decisions and constraints',
      ...Array.from(
        { length: 40 },
        (_, index) => `- Decision ${index}: ${'keep it small '.repeat(4)}`,
      ),
      '## Progress',
      ...Array.from(
        { length: 80 },
        (_, index) => `- Step ${index}: ${'ran the tests again '.repeat(4)}`,
      ),
      '## Files and artifacts',
      '- src/app/main.ts',
      '## Errors seen',
      "- TypeError: cannot read properties of undefined (reading 'x')",
      '## Next step',
      '- Continue.',
    ].join('\n');
    const large = [createSummaryItem(body), ...transcript.slice(1)];
    const room = 300;
    const maxTokens = measure(transcript.slice(10)) + room;
    const outcome = emergencyPruneTranscript({ transcript: large, tokens, maxTokens });
    const [kept] = outcome.transcript;
    expect(kept !== undefined && isSummaryItem(kept)).toBe(true);
    const text = kept?.kind === 'context' ? kept.text : '';
    expect(text).toContain('- First request (verbatim): Fix the failing build in src/app/main.ts.');
    expect(text).toContain('- src/app/main.ts');
    expect(text).toContain("TypeError: cannot read properties of undefined (reading 'x')");
    expect(text).not.toContain('Step 0:');
    expect(text).toMatch(/lines cut\)/);
    expect(outcome).toMatchObject({ fits: true, keptSummary: true, summaryTruncated: true });
    expect(ids(outcome.transcript).slice(1)).toEqual(ids(transcript.slice(10)));
    expect(validateTranscript(outcome.transcript)).toEqual([]);
  });

  it('keeps the latest turn even when it alone is too large, and says it does not fit', async () => {
    const { transcript: output, metadata } = await run(
      emergencyPrune({ maxTokens: 10 }),
      transcript,
    );
    expect(ids(output)).toEqual(['s', ...ids(transcript.slice(10))]);
    expect(metadata).toMatchObject({ fits: false, turnsKept: 1, maxTokens: 10, keptSummary: true });
  });

  it('uses the budget target when no maxTokens is given', async () => {
    const withoutSummary = transcript.slice(1);
    const targetTokens = measure(withoutSummary.slice(9));
    const { metadata } = await run(emergencyPrune(), withoutSummary, {
      maxTokens: targetTokens * 2,
      targetTokens,
    });
    expect(metadata).toMatchObject({ fits: true, maxTokens: targetTokens });
  });

  it('is deterministic', () => {
    const first = emergencyPruneTranscript({ transcript, tokens, maxTokens: 900 });
    const second = emergencyPruneTranscript({ transcript, tokens, maxTokens: 900 });
    expect(ids(first.transcript)).toEqual(ids(second.transcript));
  });
});

describe('pipeline', () => {
  const transcript: Item[] = [
    user('u1'),
    assistant('a1', { reasoning: big('thinking', 40), calls: ['c1'] }),
    result('r1', 'c1', { content: big('output', 400) }),
    user('u2'),
    assistant('a2', { text: 'ok' }),
  ];

  it('runs its steps in order, as the seed CompactionPipeline, and lists every step', async () => {
    const strategy = pipeline(
      dropReasoning(),
      pruneToolResults({ protectRecentTokens: 0, minSavingsTokens: 0 }),
    );
    const { transcript: output, metadata } = await run(strategy, transcript);
    expect(validateTranscript(output)).toEqual([]);
    expect(metadata).toMatchObject({ applied: ['dropReasoning', 'pruneToolResults'] });
    const { steps } = metadata as {
      steps: { name: string; tokensBefore: number; tokensAfter: number }[];
    };
    expect(steps.map((step) => step.name)).toEqual(['dropReasoning', 'pruneToolResults']);
    expect(steps[0]?.tokensBefore).toBe(tokens.count(transcript));
    expect(steps[1]?.tokensBefore).toBe(steps[0]?.tokensAfter);
    expect(steps[1]?.tokensAfter).toBe(tokens.count(output));
  });

  it('stops once the transcript is under the target', async () => {
    const afterReasoning = (await run(dropReasoning(), transcript)).transcript;
    const strategy = pipeline(
      dropReasoning(),
      pruneToolResults({ protectRecentTokens: 0, minSavingsTokens: 0 }),
    );
    const { transcript: output, metadata } = await run(strategy, transcript, {
      maxTokens: 1_000_000,
      targetTokens: tokens.count(afterReasoning),
    });
    expect(output.map((item) => item.kind)).toEqual(afterReasoning.map((item) => item.kind));
    expect(metadata).toMatchObject({ applied: ['dropReasoning'] });
    expect(metadata).toMatchObject({
      steps: expect.arrayContaining([
        expect.objectContaining({ name: 'pruneToolResults', skipped: 'target_reached' }),
      ]),
    });
    expect(metadata).toMatchObject({ reachedTarget: true });
  });

  it('stops with an AbortedError when the signal is aborted, as the seed pipeline checks cancellation', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      run(pipeline(dropReasoning()), transcript, undefined, controller.signal),
    ).rejects.toThrow(AbortedError);
  });
});
