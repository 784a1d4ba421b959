import {
  type CompactionBackend,
  CompactionError,
  type CompactionStrategy,
  ConcurrencyError,
  ConfigError,
  createCompactor,
  createTokenCounter,
  dropReasoning,
  effectiveHistory,
  extractiveSummarizer,
  fromChatMessages,
  type Item,
  MemorySessionStore,
  pipeline,
  pruneToolResults,
  type SessionEvent,
  tokenBudgetTrigger,
  validateTranscript,
} from 'loopkeeper';
import {
  applyCompaction,
  type CompactionTrigger,
  type Compactor,
  compactionBudgetFor,
  isSummaryItem,
} from 'loopkeeper/compaction';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { rejection } from '../support/rejection.js';
import { loadTranscriptFixtures } from '../support/transcripts.js';

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

/** A backend that counts its calls and delegates to the extractive summarizer. */
function countingBackend(): { backend: CompactionBackend; calls: () => number } {
  const extractive = extractiveSummarizer();
  let calls = 0;
  return {
    calls: () => calls,
    backend: {
      name: 'counting-extractive',
      maxInputTokens: Number.POSITIVE_INFINITY,
      summarize(request) {
        calls += 1;
        return extractive.summarize(request);
      },
    },
  };
}

function faultyBackend(summarize: CompactionBackend['summarize']): CompactionBackend {
  return { name: 'faulty', maxInputTokens: 100_000, summarize };
}

const faults: readonly (readonly [string, CompactionBackend, string])[] = [
  [
    'throws',
    faultyBackend(async () => {
      throw new Error('summarizer crashed');
    }),
    'summary_failed',
  ],
  ['hangs past its timeout', faultyBackend(() => new Promise(() => undefined)), 'summary_timeout'],
  ['returns empty text', faultyBackend(async () => ({ text: '' })), 'summary_rejected'],
  [
    'returns text without the sections',
    faultyBackend(async () => ({ text: 'A nice paragraph about the session, with no headings.' })),
    'summary_rejected',
  ],
];

function signal(): AbortSignal {
  return new AbortController().signal;
}

let tokens: TokenCounter;
let session: Item[];
let sessionTokens: number;
/** Tokens after the structural tier alone, run all the way. */
let structuralTokens: number;

/** A trigger that fires on the whole session, aiming at `targetTokens`. */
/** The structural tier as `structuralTokens` was measured: every old output pruned. */
const pruneEverything = {
  pruneToolResults: { protectRecentTokens: 0, minSavingsTokens: 0, minOutputTokens: 0 },
};

function triggerAimingAt(targetTokens: number): CompactionTrigger {
  const maxTokens = sessionTokens - 1;
  return tokenBudgetTrigger({ maxTokens, targetRatio: Math.min(1, targetTokens / maxTokens) });
}

beforeAll(async () => {
  tokens = await createTokenCounter();
  session = concatenatedSession();
  sessionTokens = tokens.count(session);
  const structural = await pipeline(dropReasoning(), pruneToolResults()).apply(
    { transcript: session, reason: 'threshold', budget: { maxTokens: 0, targetTokens: 0 } },
    { tokens, signal: signal() },
  );
  structuralTokens = tokens.count(structural.transcript);
});

async function storeWithSession(): Promise<{ store: MemorySessionStore; seq: number }> {
  const store = new MemorySessionStore();
  const written = await store.append('s1', [{ type: 'items-appended', items: session }], {
    expectedSeq: 0,
  });
  return { store, seq: written.at(-1)?.seq ?? 0 };
}

async function readAll(store: MemorySessionStore): Promise<SessionEvent[]> {
  const events: SessionEvent[] = [];
  for await (const event of store.read('s1')) events.push(event);
  return events;
}

/** What the loop machine does: compact; on a summary failure, the emergency prune instead. */
async function compactLikeTheLoop(compactor: Compactor, store: MemorySessionStore, seq: number) {
  const input = { transcript: session, tokens, reason: 'threshold' as const, signal: signal() };
  let outcome: Awaited<ReturnType<Compactor['compact']>>;
  let failure: unknown;
  try {
    outcome = await compactor.compact(input);
  } catch (error) {
    failure = error;
    outcome = await compactor.emergencyPrune(input);
  }
  await applyCompaction({
    store,
    sessionId: 's1',
    expectedSeq: seq,
    previous: session,
    outcome,
    reason: 'threshold',
  });
  return { outcome, failure };
}

describe('createCompactor', () => {
  it('has real work to do: the session is large and the structural tier alone saves something', () => {
    expect(sessionTokens).toBeGreaterThan(40_000);
    expect(structuralTokens).toBeLessThan(sessionTokens);
  });

  it('does nothing while the trigger does not fire', async () => {
    const { backend, calls } = countingBackend();
    const compactor = createCompactor({
      trigger: tokenBudgetTrigger({ maxTokens: 1_000_000 }),
      backend,
    });
    const output = await compactor.mutate({
      transcript: session,
      tokens,
      point: 'AfterToolResult',
      signal: signal(),
    });
    expect(output.dirty).toBe(false);
    expect(calls()).toBe(0);
    expect(compactor.evaluate({ transcript: session, tokens }).fire).toBe(false);
  });

  it('stops at the structural tier when it reaches the target: the backend is never called', async () => {
    const { backend, calls } = countingBackend();
    const compactor = createCompactor({
      trigger: triggerAimingAt(structuralTokens + 50),
      backend,
      structural: pruneEverything,
    });
    const outcome = await compactor.compact({
      transcript: session,
      tokens,
      reason: 'threshold',
      signal: signal(),
    });
    expect(outcome.tier).toBe('structural');
    expect(outcome.strategies).toContain('pruneToolResults');
    expect(outcome.strategies).not.toContain('summarizeOlder');
    expect(outcome.effective).toBe(true);
    expect(outcome.tokensAfter).toBeLessThanOrEqual(structuralTokens + 50);
    expect(outcome.tokensBefore).toBe(sessionTokens);
    expect(calls()).toBe(0);
    expect(validateTranscript(outcome.transcript)).toEqual([]);
  });

  it('summarizes only when the structural tier is not enough', async () => {
    const { backend, calls } = countingBackend();
    const compactor = createCompactor({
      trigger: triggerAimingAt(Math.floor(structuralTokens / 2)),
      backend,
    });
    const outcome = await compactor.compact({
      transcript: session,
      tokens,
      reason: 'threshold',
      signal: signal(),
    });
    expect(outcome.tier).toBe('summary');
    expect(outcome.strategies.at(-1)).toBe('summarizeOlder');
    expect(calls()).toBe(1);
    expect(outcome.effective).toBe(true);
    const first = outcome.transcript[0];
    expect(first !== undefined && isSummaryItem(first)).toBe(true);
    expect(validateTranscript(outcome.transcript)).toEqual([]);
    expect(outcome.metadata).toHaveProperty('trigger.basis', 'estimate');
  });

  it('without a backend it never summarizes: with headroom under the trigger line it is effective, above it not', async () => {
    // Above the target but below the half-way mark between target and line: headroom enough.
    const target = structuralTokens - 100;
    const underLine = await createCompactor({
      trigger: triggerAimingAt(target),
      structural: pruneEverything,
    }).compact({
      transcript: session,
      tokens,
      reason: 'threshold',
      signal: signal(),
    });
    expect(underLine.tier).toBe('structural');
    expect(underLine.tokensAfter).toBeGreaterThan(target);
    expect(underLine.effective).toBe(true);

    // Just under the line leaves no room for the next step: not effective (it would thrash).
    const justUnder = await createCompactor({
      trigger: tokenBudgetTrigger({ maxTokens: structuralTokens + 10, targetRatio: 0.5 }),
      structural: pruneEverything,
    }).compact({ transcript: session, tokens, reason: 'threshold', signal: signal() });
    expect(justUnder.tokensAfter).toBeLessThanOrEqual(structuralTokens + 10);
    expect(justUnder.effective).toBe(false);

    const overLine = await createCompactor({
      trigger: tokenBudgetTrigger({ maxTokens: structuralTokens - 100, targetRatio: 0.5 }),
    }).compact({ transcript: session, tokens, reason: 'threshold', signal: signal() });
    expect(overLine.tier).toBe('structural');
    expect(overLine.effective).toBe(false);
  });

  describe.each(faults)('when the summarizer %s', (_fault, backend, code) => {
    // Only the hanging backend needs the timeout to end it; the others get a timeout no load
    // can reach, so a slow machine cannot turn their failure into a timeout.
    const compactorFor = () =>
      createCompactor({
        trigger: triggerAimingAt(Math.floor(structuralTokens / 2)),
        backend,
        summaryTimeoutMs: code === 'summary_timeout' ? 50 : 30_000,
      });

    it('compact() throws a CompactionError for the caller to fall back on', async () => {
      const error = await rejection(
        compactorFor().compact({
          transcript: session,
          tokens,
          reason: 'threshold',
          signal: signal(),
        }),
      );
      expect(CompactionError.isInstance(error)).toBe(true);
      expect((error as CompactionError).code).toBe(code);
    });

    it('mutate() falls back to the emergency prune and returns a valid transcript', async () => {
      const output = await compactorFor().mutate({
        transcript: session,
        tokens,
        point: 'AfterTurnEnded',
        signal: signal(),
      });
      expect(output.dirty).toBe(true);
      if (!output.dirty) return;
      expect(validateTranscript(output.transcript)).toEqual([]);
      expect(output.marker?.tier).toBe('emergency');
      expect(output.marker?.tokensAfter).toBeLessThan(sessionTokens);
      expect(output.metadata).toHaveProperty('summaryError.code', code);
      const latestUser = session.findLast((item) => item.kind === 'user');
      expect(output.transcript).toContain(latestUser);
    });

    it('the session log gets exactly one marker, for the emergency prune, none for the failed summary', async () => {
      const { store, seq } = await storeWithSession();
      const { outcome, failure } = await compactLikeTheLoop(compactorFor(), store, seq);
      expect(CompactionError.isInstance(failure)).toBe(true);
      const events = await readAll(store);
      const markers = events.filter((event) => event.type === 'transcript-replaced');
      expect(markers).toHaveLength(1);
      expect(markers[0]).toMatchObject({ tier: 'emergency', throughSeq: seq, reason: 'threshold' });
      expect(effectiveHistory(events).map((item) => item.id)).toEqual(
        outcome.transcript.map((item) => item.id),
      );
      expect(validateTranscript(effectiveHistory(events))).toEqual([]);
    });
  });

  it('mutate() goes on to the emergency prune when a compaction leaves the transcript over the trigger line', async () => {
    const maxTokens = structuralTokens - 100;
    const output = await createCompactor({
      trigger: tokenBudgetTrigger({ maxTokens, targetRatio: 0.5 }),
    }).mutate({ transcript: session, tokens, point: 'AfterToolResult', signal: signal() });
    expect(output.dirty).toBe(true);
    if (!output.dirty) return;
    expect(output.marker?.tier).toBe('emergency');
    expect(output.marker?.strategies).toEqual(
      expect.arrayContaining(['pruneToolResults', 'emergencyPrune']),
    );
    expect(output.marker?.tokensAfter).toBeLessThanOrEqual(maxTokens);
    expect(validateTranscript(output.transcript)).toEqual([]);
  });

  it('records a successful summary as one marker whose projection is the compacted transcript', async () => {
    const { store, seq } = await storeWithSession();
    const compactor = createCompactor({
      trigger: triggerAimingAt(Math.floor(structuralTokens / 2)),
      backend: extractiveSummarizer(),
    });
    const { outcome, failure } = await compactLikeTheLoop(compactor, store, seq);
    expect(failure).toBeUndefined();
    const events = await readAll(store);
    const markers = events.filter((event) => event.type === 'transcript-replaced');
    expect(markers).toHaveLength(1);
    expect(markers[0]).toMatchObject({ tier: 'summary', tokensAfter: outcome.tokensAfter });
    expect(effectiveHistory(events)).toEqual(outcome.transcript);
  });

  it('applyCompaction writes nothing when another writer moved the session on', async () => {
    const { store, seq } = await storeWithSession();
    await store.append('s1', [{ type: 'items-appended', items: [] }], { expectedSeq: seq });
    const compactor = createCompactor({ trigger: triggerAimingAt(structuralTokens + 50) });
    const outcome = await compactor.compact({
      transcript: session,
      tokens,
      reason: 'threshold',
      signal: signal(),
    });
    const error = await rejection(
      applyCompaction({
        store,
        sessionId: 's1',
        expectedSeq: seq,
        previous: session,
        outcome,
        reason: 'threshold',
      }),
    );
    expect(ConcurrencyError.isInstance(error)).toBe(true);
    expect((await readAll(store)).some((event) => event.type === 'transcript-replaced')).toBe(
      false,
    );
  });

  it('prunes the largest tool outputs first after a payload-too-large refusal', async () => {
    const compactor = createCompactor({ trigger: tokenBudgetTrigger({ maxTokens: 1_000_000 }) });
    const outcome = await compactor.compact({
      transcript: session,
      tokens,
      reason: 'payload_too_large',
      signal: signal(),
    });
    expect(outcome.strategies[0]).toBe('pruneLargestToolResults');
    expect(outcome.tokensAfter).toBeLessThan(outcome.tokensBefore);
    expect(validateTranscript(outcome.transcript)).toEqual([]);
  });

  it('compacts after a provider overflow even when its own trigger does not fire', async () => {
    const compactor = createCompactor({ trigger: tokenBudgetTrigger({ maxTokens: 1_000_000 }) });
    const output = await compactor.mutate({
      transcript: session,
      tokens,
      point: 'BeforeInference',
      reason: 'overflow',
      signal: signal(),
    });
    expect(output.dirty).toBe(true);
    if (output.dirty) {
      expect(output.marker?.reason).toBe('overflow');
      expect(output.marker?.tokensAfter).toBeLessThan(sessionTokens);
    }
  });

  it('after a refusal only the trigger line counts as fitting: the window limit is dropped', () => {
    const budget = { maxTokens: 1_000, targetTokens: 600, limitTokens: 4_000 };
    expect(compactionBudgetFor({ reason: 'threshold', budget, tokens: 1_200 })).toBe(budget);
    expect(compactionBudgetFor({ reason: 'overflow', budget, tokens: 1_200 })).toEqual({
      maxTokens: 1_000,
      targetTokens: 600,
    });
    expect(compactionBudgetFor({ reason: 'payload_too_large', budget, tokens: 500 })).toEqual({
      maxTokens: 500,
      targetTokens: 300,
    });
  });

  describe('a latest turn with a huge output the model has not read yet', () => {
    const huge = 'line of output\n'.repeat(3_000);
    const turn: Item[] = [
      { kind: 'user', id: 'u1', content: 'run big' },
      { kind: 'assistant', id: 'a1', toolCalls: [{ id: 'c1', name: 'big', arguments: '{}' }] },
      {
        kind: 'toolResult',
        id: 'r1',
        callId: 'c1',
        toolName: 'big',
        content: huge,
        isError: false,
      },
    ];

    it('compact() clips it to its head and tail with a note of what was cut, on any path', async () => {
      const compactor = createCompactor({ trigger: tokenBudgetTrigger({ maxTokens: 2_000 }) });
      for (const reason of ['threshold', 'overflow'] as const) {
        const outcome = await compactor.compact({
          transcript: turn,
          tokens,
          reason,
          signal: signal(),
        });
        expect(outcome.strategies).toContain('clipToolResults');
        expect(outcome.effective).toBe(true);
        expect(outcome.tokensAfter).toBeLessThan(outcome.tokensBefore / 10);
        const result = outcome.transcript[2];
        expect(result?.kind === 'toolResult' && result.content).toMatch(
          /^line of output\n[\s\S]*\[… \d+ lines, \d+ characters cut by compaction\.[\s\S]*line of output\n?$/,
        );
        expect(validateTranscript(outcome.transcript)).toEqual([]);
      }
    });

    it('without clipping, after an overflow compact() prunes it even though the structural tier protects it', async () => {
      const compactor = createCompactor({
        trigger: tokenBudgetTrigger({ maxTokens: 100_000 }),
        structural: { clipToolResults: false },
      });
      const outcome = await compactor.compact({
        transcript: turn,
        tokens,
        reason: 'overflow',
        signal: signal(),
      });
      expect(outcome.strategies).toEqual(['pruneLargestToolResults']);
      expect(outcome.tokensAfter).toBeLessThan(outcome.tokensBefore / 10);
      expect(outcome.transcript.map((item) => item.kind)).toEqual([
        'user',
        'assistant',
        'toolResult',
      ]);
      expect(validateTranscript(outcome.transcript)).toEqual([]);
    });

    it('without clipping, on the threshold path compact() leaves it, and the emergency prune cuts it rather than fail', async () => {
      const compactor = createCompactor({
        trigger: tokenBudgetTrigger({ maxTokens: 2_000, targetRatio: 0.5 }),
        structural: { clipToolResults: false },
      });
      const input = { transcript: turn, tokens, reason: 'threshold' as const, signal: signal() };
      const compacted = await compactor.compact(input);
      expect(compacted.effective).toBe(false);
      const emergency = await compactor.emergencyPrune(input);
      expect(emergency.fits).toBe(true);
      expect(emergency.strategies).toEqual(['pruneLargestToolResults']);
      expect(emergency.tokensAfter).toBeLessThanOrEqual(1_000);
      expect(validateTranscript(emergency.transcript)).toEqual([]);
    });
  });

  it('runs a given strategy in place of the structural tier', async () => {
    let applied = 0;
    const dropOldest: CompactionStrategy = {
      name: 'keepSecondHalf',
      async apply({ transcript }) {
        applied += 1;
        const start = transcript.findIndex(
          (item, index) => index >= transcript.length / 2 && item.kind === 'user',
        );
        return { transcript: transcript.slice(start), metadata: {} };
      },
    };
    const compactor = createCompactor({
      trigger: triggerAimingAt(sessionTokens - 2),
      strategy: dropOldest,
    });
    const outcome = await compactor.compact({
      transcript: session,
      tokens,
      reason: 'threshold',
      signal: signal(),
    });
    expect(applied).toBe(1);
    expect(outcome.strategies).toEqual(['keepSecondHalf']);
    expect(outcome.tier).toBe('structural');
  });

  it('refuses options that would only fail mid-run with a ConfigError', () => {
    const trigger = tokenBudgetTrigger();
    const refusals: readonly (() => unknown)[] = [
      () => createCompactor({} as never),
      () => createCompactor({ trigger: {} as never }),
      () => createCompactor({ trigger, backend: { name: 'x' } as never }),
      () => createCompactor({ trigger, backend: { ...extractiveSummarizer(), maxInputTokens: 0 } }),
      () => createCompactor({ trigger, strategy: { name: 'x' } as never }),
      () => createCompactor({ trigger, points: ['Sometimes' as never] }),
      () => createCompactor({ trigger, summaryTimeoutMs: 0 }),
      () => createCompactor({ trigger, emergency: { maxTokens: -1 } }),
    ];
    for (const refusal of refusals) expect(refusal).toThrow(ConfigError);
    expect(() => createCompactor({} as never)).toThrow(/trigger/);
  });

  it('is a LoopMutator with a name and the three mutation points', () => {
    const compactor = createCompactor({ trigger: tokenBudgetTrigger() });
    expect(compactor.name).toBe('compactor');
    expect(compactor.points).toEqual(['AfterToolResult', 'AfterTurnEnded', 'BeforeInference']);
  });
});
