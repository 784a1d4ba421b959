import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConcurrencyError, ConfigError, type SessionStore, StoreError } from 'loopkeeper';
import { type NewSessionEvent, SESSION_SCHEMA_VERSION } from 'loopkeeper/log';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { user } from '../support/items.js';
import { rejection } from '../support/rejection.js';
import { collect, FIXED_TIME, itemsAppended, replacement } from '../support/session-events.js';

/**
 * The contract every `SessionStore` keeps: the cases run against each store (memory and file in
 * test/log/session-store-contract.test.ts, PostgreSQL in test/postgres/). `create` makes a fresh,
 * empty store for each case; `directory` is a new temporary directory it may use.
 */
export function describeSessionStoreContract({
  name,
  create,
}: {
  readonly name: string;
  readonly create: (directory: string) => SessionStore | Promise<SessionStore>;
}): void {
  describe(`SessionStore contract: ${name}`, () => {
    let directory: string;
    let store: SessionStore;

    beforeEach(async () => {
      directory = await mkdtemp(join(tmpdir(), 'loopkeeper-contract-'));
      store = await create(directory);
    });

    afterEach(async () => {
      await store.close();
      await rm(directory, { recursive: true, force: true });
    });

    it('stamps v, seq from 1 and at, and reads back exactly what append returned', async () => {
      const first = await store.append('s1', [
        itemsAppended([user('a')]),
        { type: 'run-started', runId: 'r1' },
      ]);
      const second = await store.append('s1', [itemsAppended([user('b')])]);
      expect(first.map((event) => event.seq)).toEqual([1, 2]);
      expect(second.map((event) => event.seq)).toEqual([3]);
      expect(first[0]).toEqual({
        v: SESSION_SCHEMA_VERSION,
        seq: 1,
        at: FIXED_TIME.toISOString(),
        type: 'items-appended',
        items: [user('a')],
      });
      expect(await collect(store.read('s1'))).toEqual([...first, ...second]);
    });

    it('reads from fromSeq on', async () => {
      await store.append(
        's1',
        [1, 2, 3, 4].map((n) => itemsAppended([user(`i${n}`)])),
      );
      const fromThree = await collect(store.read('s1', { fromSeq: 3 }));
      expect(fromThree.map((event) => event.seq)).toEqual([3, 4]);
      expect(await collect(store.read('s1', { fromSeq: 5 }))).toEqual([]);
      expect((await collect(store.read('s1', { fromSeq: 0 }))).length).toBe(4);
    });

    it('reads an unknown session as empty', async () => {
      expect(await collect(store.read('never-written'))).toEqual([]);
    });

    it('appends with a current expectedSeq, and refuses a stale one with ConcurrencyError writing nothing', async () => {
      await store.append('s1', [itemsAppended([user('a')])], { expectedSeq: 0 });
      await store.append('s1', [itemsAppended([user('b')])], { expectedSeq: 1 });
      const error = await rejection(
        store.append('s1', [itemsAppended([user('stale')]), itemsAppended([])], {
          expectedSeq: 1,
        }),
      );
      expect(ConcurrencyError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(/at seq 2, not the expected 1/);
      const events = await collect(store.read('s1'));
      expect(events.map((event) => event.seq)).toEqual([1, 2]);
      expect(JSON.stringify(events)).not.toContain('stale');
      const next = await store.append('s1', [itemsAppended([user('c')])], { expectedSeq: 2 });
      expect(next[0]?.seq).toBe(3);
    });

    it('refuses expectedSeq on a session that is not empty when 0 is expected', async () => {
      await store.append('s1', [itemsAppended([user('a')])]);
      expect(
        ConcurrencyError.isInstance(
          await rejection(store.append('s1', [itemsAppended([])], { expectedSeq: 0 })),
        ),
      ).toBe(true);
    });

    it('lists the sessions written, sorted', async () => {
      expect(await store.list()).toEqual([]);
      await store.append('beta', [itemsAppended([user('a')])]);
      await store.append('alpha', [itemsAppended([user('b')])]);
      expect(await store.list()).toEqual(['alpha', 'beta']);
    });

    it('keeps sessions apart', async () => {
      await store.append('one', [itemsAppended([user('a')])]);
      const other = await store.append('two', [itemsAppended([user('b')])]);
      expect(other[0]?.seq).toBe(1);
      expect((await collect(store.read('one'))).length).toBe(1);
    });

    it('gives concurrent appends distinct, gapless seqs in call order', async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          store.append('s1', [
            itemsAppended([user(`p${index}-a`)]),
            itemsAppended([user(`p${index}-b`)]),
          ]),
        ),
      );
      expect(results.flat().map((event) => event.seq)).toEqual(
        Array.from({ length: 40 }, (_, index) => index + 1),
      );
      const read = await collect(store.read('s1'));
      expect(read).toEqual(results.flat());
    });

    it('returns [] for an empty batch and leaves seq where it was', async () => {
      await store.append('s1', [itemsAppended([user('a')])]);
      expect(await store.append('s1', [])).toEqual([]);
      const [next] = await store.append('s1', [itemsAppended([user('b')])]);
      expect(next?.seq).toBe(2);
    });

    it('stamps over v, seq and at that a caller sneaks in, and drops a sneaked-in crc', async () => {
      const sneaky = {
        ...itemsAppended([user('a')]),
        v: 99,
        seq: 42,
        at: 'yesterday',
        crc: '00000000',
      };
      const [event] = await store.append('s1', [sneaky as NewSessionEvent]);
      expect(event).toMatchObject({
        v: SESSION_SCHEMA_VERSION,
        seq: 1,
        at: FIXED_TIME.toISOString(),
      });
      expect(event).not.toHaveProperty('crc');
      expect(await collect(store.read('s1'))).toEqual([event]);
    });

    it('hands out frozen events, and a caller editing its input afterwards changes no history', async () => {
      const item = { kind: 'user' as const, id: 'a', content: 'original' };
      const [returned] = await store.append('s1', [{ type: 'items-appended', items: [item] }]);
      item.content = 'edited';
      const [read] = await collect(store.read('s1'));
      expect(read).toMatchObject({ items: [{ content: 'original' }] });
      expect(Object.isFrozen(returned)).toBe(true);
      expect(() => {
        const [storedItem] = (read as unknown as { items: { content: string }[] }).items;
        if (storedItem !== undefined) storedItem.content = 'edited';
      }).toThrow(TypeError);
      expect((await collect(store.read('s1')))[0]).toMatchObject({
        items: [{ content: 'original' }],
      });
    });

    it.each([
      ['a non-object', 'not an event', /the event must be an object/],
      [
        'an unknown type',
        { type: 'items-deleted' },
        /type must be 'items-appended', .* \(got string 'items-deleted'\)/,
      ],
      [
        'items that are not an array',
        { type: 'items-appended', items: 'a' },
        /items must be an array/,
      ],
      [
        'an item without an id',
        { type: 'items-appended', items: [{ kind: 'user' }] },
        /items\[0\]\.id must be a string \(got nothing\)/,
      ],
      [
        'items with a run id that is not a string',
        { type: 'items-appended', runId: 7, items: [] },
        /runId must be a string \(got number 7\)/,
      ],
      [
        'started calls without a run id',
        { type: 'tool-calls-started', calls: [{ callId: 'c1', argumentsHash: 'sha256:0' }] },
        /runId/,
      ],
      [
        'no started calls',
        { type: 'tool-calls-started', runId: 'r', calls: [] },
        /calls must list at least one call/,
      ],
      [
        'a started call with an empty id',
        { type: 'tool-calls-started', runId: 'r', calls: [{ callId: '', argumentsHash: 'h' }] },
        /calls\[0\]\.callId must not be empty/,
      ],
      [
        'a started call without its hash',
        { type: 'tool-calls-started', runId: 'r', calls: [{ callId: 'c1' }] },
        /calls\[0\]\.argumentsHash/,
      ],
      ['a marker covering itself', replacement({ throughSeq: 3, view: [] }), /throughSeq must be/],
      [
        'a marker with a bad view entry',
        replacement({ throughSeq: 0, view: [{} as never] }),
        /view\[0\] must be \{ref\} or \{item\}/,
      ],
      [
        'usage without a model',
        { type: 'usage-reported', promptTokens: 1, completionTokens: 1 },
        /model/,
      ],
      [
        'negative token counts',
        { type: 'usage-reported', model: 'm', promptTokens: -1, completionTokens: 1 },
        /promptTokens/,
      ],
      [
        'a value JSON cannot hold',
        { type: 'run-started', runId: 'r', extra: 1n },
        /cannot be stored as JSON/,
      ],
    ])(
      'refuses %s with StoreError and writes nothing of the batch',
      async (_label, bad, message) => {
        await store.append('s1', [itemsAppended([user('a')])]);
        const error = await rejection(
          store.append('s1', [itemsAppended([user('b')]), bad as NewSessionEvent]),
        );
        expect(StoreError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ code: 'invalid_event' });
        expect((error as Error).message).toMatch(message);
        expect((await collect(store.read('s1'))).map((event) => event.seq)).toEqual([1]);
      },
    );

    it.each([
      ['a path that climbs out', '../../etc/passwd'],
      ['an empty id', ''],
      ['a 10,000-character id', 'x'.repeat(10_000)],
      ['a dot file', '.hidden'],
      ['a slash', 'a/b'],
    ])('refuses %s as session id with ConfigError everywhere', async (_label, sessionId) => {
      const appendError = await rejection(store.append(sessionId, [itemsAppended([])]));
      expect(ConfigError.isInstance(appendError)).toBe(true);
      expect(ConfigError.isInstance(thrown(() => store.read(sessionId)))).toBe(true);
      expect(await store.list()).toEqual([]);
    });

    it('refuses an expectedSeq or fromSeq that is not a whole number with ConfigError', async () => {
      for (const expectedSeq of [-1, 1.5, Number.NaN]) {
        const error = await rejection(store.append('s1', [], { expectedSeq }));
        expect(ConfigError.isInstance(error)).toBe(true);
      }
      expect(ConfigError.isInstance(thrown(() => store.read('s1', { fromSeq: -2 })))).toBe(true);
    });

    it('refuses work after close with StoreError', async () => {
      await store.append('s1', [itemsAppended([user('a')])]);
      await store.close();
      const error = await rejection(store.append('s1', [itemsAppended([])]));
      expect(error).toMatchObject({ name: 'StoreError', code: 'store_closed' });
      expect(StoreError.isInstance(thrown(() => store.read('s1')))).toBe(true);
    });
  });
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
