import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTokenCounter,
  dropReasoning,
  emergencyPrune,
  extractiveSummarizer,
  FileSessionStore,
  type Item,
  keepRecent,
  MemorySessionStore,
  pruneToolResults,
  StoreError,
  summarizeOlder,
  validateTranscript,
} from 'loopkeeper';
import { clipToolResults } from 'loopkeeper/compaction';
import type { SessionStore } from 'loopkeeper/log';
import type { AssistantItem, ReasoningPart } from 'loopkeeper/transcript';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { result, user } from '../support/items.js';
import { reseal } from '../support/log-lines.js';
import { rejection } from '../support/rejection.js';
import { collect, itemsAppended } from '../support/session-events.js';

/** Reasoning as providers hand it back: signed, encrypted, redacted (no readable text). */
const signed: ReasoningPart = {
  text: 'The user wants the weather; call the tool.',
  providerData: { anthropic: { signature: 'EqQBCkYIBRgCIkB3…sig==' } },
};
const encrypted: ReasoningPart = {
  text: '',
  providerData: {
    openai: { id: 'rs_68a1', encryptedContent: 'gAAAAABo…', summary: [{ text: 'ü ✓ 𝄞' }] },
  },
};
const redacted: ReasoningPart = {
  text: '',
  providerData: { anthropic: { redactedData: 'EmwKAhgBEgy3…', order: [3, 1.5, -0, null, true] } },
};

function thinking(id: string, reasoning: readonly ReasoningPart[], callId?: string): AssistantItem {
  return {
    kind: 'assistant',
    id,
    reasoning,
    ...(callId === undefined
      ? { text: 'done' }
      : { toolCalls: [{ id: callId, name: 'bash', arguments: '{}' }] }),
  };
}

/** Values a JSON round trip would change or refuse, each as a reasoning part's provider data. */
function cycle(): object {
  const value: Record<string, unknown> = { a: 1 };
  value['self'] = value;
  return value;
}
const unstorable: readonly [string, unknown][] = [
  ['NaN', { openai: { score: Number.NaN } }],
  ['Infinity', { openai: [Number.POSITIVE_INFINITY] }],
  ['an undefined value', { anthropic: { signature: undefined } }],
  ['a function', { anthropic: () => 'sig' }],
  ['a Date', { openai: { at: new Date(0) } }],
  ['a Map', { openai: new Map() }],
  ['a bigint', { openai: 1n }],
  ['a cycle', { openai: cycle() }],
  ['an array', ['sig']],
  ['a string', 'sig'],
];

describe('ReasoningPart.providerData in the log (schema version 5)', () => {
  let directory: string;
  const stores: FileSessionStore[] = [];
  const open = () => {
    const store = new FileSessionStore({ directory });
    stores.push(store);
    return store;
  };
  const logPath = (sessionId: string) => join(directory, `${sessionId}.jsonl`);

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'loopkeeper-provider-data-'));
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('a file store gives provider data back byte-identical after the session is reopened', async () => {
    const item = thinking('a1', [signed, encrypted, redacted], 'call_1');
    const writer = open();
    await writer.append('s1', [itemsAppended([user('u1'), item])]);
    await writer.close();

    const [event] = await collect(open().read('s1'));
    expect(event).toMatchObject({ v: 5, type: 'items-appended' });
    const stored = event?.type === 'items-appended' ? event.items[1] : undefined;
    expect(stored?.kind).toBe('assistant');
    const parts = stored?.kind === 'assistant' ? (stored.reasoning ?? []) : [];
    expect(parts.map((part) => JSON.stringify(part))).toEqual(
      [signed, encrypted, redacted].map((part) => JSON.stringify(part)),
    );
  });

  it('reads a version-4 log unchanged and appends version-5 events after it', async () => {
    const writer = open();
    await writer.append('s1', [itemsAppended([user('u1')]), { type: 'run-started', runId: 'r1' }]);
    await writer.close();
    const written = await collect(open().read('s1'));
    // Rewrite the lines as a version-4 loopkeeper wrote them (same events, v 4).
    const lines = (await readFile(logPath('s1'), 'utf8')).split('\n');
    const old = lines.map((line) => (line === '' ? line : reseal(line.replace('"v":5', '"v":4'))));
    await writeFile(logPath('s1'), old.join('\n'));

    const reader = open();
    const events = await collect(reader.read('s1'));
    expect(events).toEqual(written.map((event) => ({ ...event, v: 4 })));
    await reader.append('s1', [itemsAppended([thinking('a1', [signed])])]);
    const after = await collect(reader.read('s1', { fromSeq: 3 }));
    expect(after).toMatchObject([{ v: 5, seq: 3, type: 'items-appended' }]);
  });

  for (const [name, make] of [
    ['MemorySessionStore', () => new MemorySessionStore()],
    ['FileSessionStore', () => open()],
  ] as const) {
    it(`${name} refuses provider data a JSON round trip would change, and writes nothing`, async () => {
      const store: SessionStore = make();
      for (const [what, providerData] of unstorable) {
        const item = { ...thinking('a1', []), reasoning: [{ text: '', providerData }] };
        const error = await rejection(
          store.append('s1', [itemsAppended([user('u1')]), itemsAppended([item as Item])]),
        );
        expect(StoreError.isInstance(error), what).toBe(true);
        expect(error, what).toMatchObject({ code: 'invalid_event' });
        expect((error as Error).message, what).toMatch(
          /event 1 .*items\[0\]\.reasoning\[0\]\.providerData/,
        );
      }
      // A marker's inline items are checked the same way.
      const marker = {
        type: 'transcript-replaced' as const,
        throughSeq: 0,
        view: [
          {
            item: {
              ...thinking('a2', []),
              reasoning: [{ text: '', providerData: { x: Number.NaN } }],
            },
          },
        ],
        reason: 'threshold' as const,
        tier: 'provider' as const,
        strategies: [],
        tokensBefore: 1,
        tokensAfter: 1,
      };
      const error = await rejection(store.append('s1', [marker as never]));
      expect((error as Error).message).toMatch(/view\[0\]\.item\.reasoning\[0\]\.providerData/);
      expect(await collect(store.read('s1'))).toEqual([]);
    });
  }

  it('stores a provider compaction marker (tier provider)', async () => {
    const store = new MemorySessionStore();
    await store.append('s1', [itemsAppended([user('u1')])]);
    await store.append('s1', [
      {
        type: 'transcript-replaced',
        throughSeq: 1,
        view: [{ ref: 'u1' }],
        reason: 'threshold',
        tier: 'provider',
        strategies: ['openai:compaction'],
        tokensBefore: 10,
        tokensAfter: 4,
      },
    ]);
    expect(await collect(store.read('s1', { fromSeq: 2 }))).toMatchObject([{ tier: 'provider' }]);
  });
});

describe('validateTranscript and provider data', () => {
  it('reports provider data that is not a JSON object as an invalid item', () => {
    for (const [what, providerData] of unstorable) {
      const problems = validateTranscript([
        user('u1'),
        { ...thinking('a1', []), reasoning: [signed, { text: '', providerData }] } as Item,
      ]);
      expect(problems, what).toMatchObject([
        {
          index: 1,
          id: 'a1',
          kind: 'invalid_item',
          message: expect.stringMatching(/^reasoning\[1\]\.providerData/),
        },
      ]);
    }
    expect(validateTranscript([user('u1'), thinking('a1', [signed, encrypted, redacted])])).toEqual(
      [],
    );
  });
});

describe('compaction and provider data', () => {
  it('every built-in strategy keeps a reasoning part whole or drops it, never edits it', async () => {
    const tokens = await createTokenCounter();
    const long = 'the build fails in module x because '.repeat(40);
    const transcript: Item[] = [];
    for (let turn = 0; turn < 6; turn += 1) {
      const part = (index: number): ReasoningPart => ({
        text: `${long} ${turn}.${index}`,
        providerData: { anthropic: { signature: `sig-${turn}-${index}` } },
      });
      transcript.push(
        user(`u${turn}`, `step ${turn}: ${long}`),
        thinking(`a${turn}`, [part(0), part(1), encrypted], `call_${turn}`),
        result(`r${turn}`, `call_${turn}`, { content: long.repeat(5) }),
        thinking(`b${turn}`, [part(2)]),
      );
    }
    const originals = new Set(
      transcript.flatMap((item) =>
        item.kind === 'assistant' ? (item.reasoning ?? []).map((part) => JSON.stringify(part)) : [],
      ),
    );
    const budget = { maxTokens: 2_000, targetTokens: 1_000 };
    const strategies = [
      dropReasoning(),
      dropReasoning({ keepLastTurn: false, dropEmpty: false }),
      pruneToolResults({ protectRecentTokens: 0 }),
      clipToolResults({ maxTokens: 50 }),
      keepRecent({ tokens: 1_000 }),
      summarizeOlder({ keepRecentTokens: 1_000 }),
      emergencyPrune({ maxTokens: 2_000 }),
    ];
    let partsSeen = 0;
    for (const strategy of strategies) {
      const output = await strategy.apply(
        { transcript, reason: 'threshold', budget },
        { tokens, signal: new AbortController().signal, backend: extractiveSummarizer() },
      );
      for (const item of output.transcript) {
        if (item.kind !== 'assistant') continue;
        for (const part of item.reasoning ?? []) {
          partsSeen += 1;
          expect(
            originals.has(JSON.stringify(part)),
            `${strategy.name} edited a part of ${item.id}`,
          ).toBe(true);
        }
      }
    }
    // The check saw parts that survived, so it cannot pass by every strategy dropping them all.
    expect(partsSeen).toBeGreaterThan(10);
  });
});
