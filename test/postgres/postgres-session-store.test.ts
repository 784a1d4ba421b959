import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConcurrencyError,
  ConfigError,
  createAgentLoop,
  createCompactor,
  defineTool,
  effectiveHistory,
  extractiveSummarizer,
  FileSessionStore,
  MemorySessionStore,
  openAgentLoop,
  openAIChatModel,
  resumeRun,
  runTurn,
  type SessionStore,
  StoreError,
  tokenBudgetTrigger,
  validateTranscript,
} from 'loopkeeper';
import {
  createProjection,
  type IndexedSessionStore,
  loadProjection,
  type NewSessionEvent,
} from 'loopkeeper/log';
import { PostgresSessionStore } from 'loopkeeper/postgres';
import { type ScriptedAnswer, ScriptedModel } from 'loopkeeper/testing';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { user } from '../support/items.js';
import {
  fakeServerPerTest,
  nextEvent,
  readSession,
  sharedTokenCounter,
  whenIdle,
} from '../support/loop-harness.js';
import { rejection } from '../support/rejection.js';
import { collect, FIXED_TIME, itemsAppended, replacement } from '../support/session-events.js';
import { startPostgres, type TestPostgres } from './support/postgres-server.js';

let server: TestPostgres;
let pool: pg.Pool;
let tables = 0;
const opened: PostgresSessionStore[] = [];

beforeAll(async () => {
  server = await startPostgres();
  pool = server.pool();
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

afterAll(async () => {
  await pool?.end();
  await server?.stop();
});

/** A store on a table of its own, migrated. */
async function freshStore(
  options: { readonly pool?: pg.Pool; readonly table?: string; readonly pageSize?: number } = {},
): Promise<PostgresSessionStore> {
  tables += 1;
  const store = new PostgresSessionStore({
    pool: options.pool ?? pool,
    table: options.table ?? `events_${tables}`,
    now: () => FIXED_TIME,
    ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
  });
  opened.push(store);
  await store.migrate();
  return store;
}

async function tableExists(name: string): Promise<boolean> {
  const result = await pool.query('SELECT to_regclass($1) IS NOT NULL AS exists', [name]);
  return result.rows[0]?.exists === true;
}

describe('PostgresSessionStore.migrate', () => {
  it('creates nothing until called, is idempotent, and is safe to run concurrently', async () => {
    const store = new PostgresSessionStore({ pool, table: 'migrate_check' });
    opened.push(store);
    expect(await tableExists('migrate_check')).toBe(false);
    const unmigrated = await rejection(store.append('s1', [itemsAppended([user('a')])]));
    expect(unmigrated).toMatchObject({ name: 'StoreError', code: 'store_not_migrated' });
    expect((unmigrated as Error).message).toMatch(/migrate\(\)/);
    await Promise.all([store.migrate(), store.migrate(), store.migrate()]);
    await store.append('s1', [itemsAppended([user('a')])]);
    await store.migrate();
    expect((await collect(store.read('s1'))).length).toBe(1);
  });

  it('refuses a table or schema name that is not a plain identifier, before any SQL', () => {
    for (const table of ['events; DROP TABLE x', 'a"b', '', '1events', 'x'.repeat(49)]) {
      expect(() => new PostgresSessionStore({ pool, table })).toThrow(ConfigError);
    }
    expect(() => new PostgresSessionStore({ pool, schema: 'public.x' })).toThrow(ConfigError);
    expect(() => new PostgresSessionStore({})).toThrow(ConfigError);
  });
});

describe('PostgresSessionStore session ids', () => {
  it('refuses ids that would be unsafe in SQL, and stores quotes only as data never as SQL', async () => {
    const store = await freshStore({ table: 'ids_check' });
    for (const sessionId of ["x'); DROP TABLE ids_check; --", 'a"b', 'a b', '%']) {
      expect(ConfigError.isInstance(await rejection(store.append(sessionId, [])))).toBe(true);
    }
    expect(await tableExists('ids_check')).toBe(true);
    await store.append('s.1_-x', [itemsAppended([user("it's; DROP TABLE ids_check; --")])]);
    expect(await store.list()).toEqual(['s.1_-x']);
    expect(await tableExists('ids_check')).toBe(true);
  });
});

describe('PostgresSessionStore round trip', () => {
  const awkward: NewSessionEvent[] = [
    itemsAppended([
      user('nul \u0000, lone surrogate \ud800, emoji 🙂, quote " and backslash \\'),
      { kind: 'user', id: 'big', content: [{ type: 'text', text: 'é'.repeat(10_000) }] },
    ]),
    { type: 'usage-reported', model: 'm', promptTokens: 2 ** 53 - 1, completionTokens: 0 },
    { type: 'run-started', runId: 'r1' },
  ];

  it('stores the exact line the file store writes, and reads back what append returned', async () => {
    const store = await freshStore({ table: 'round_trip' });
    const written = await store.append('s1', awkward);
    expect(await collect(store.read('s1'))).toEqual(written);
    const directory = await mkdtemp(join(tmpdir(), 'loopkeeper-pg-file-'));
    try {
      const file = new FileSessionStore({ directory, now: () => FIXED_TIME });
      await file.append('s1', awkward);
      await file.close();
      const lines = (await readFile(join(directory, 's1.jsonl'), 'utf8')).split('\n');
      const rows = await pool.query('SELECT event::text AS event FROM round_trip ORDER BY seq');
      expect(rows.rows.map((row) => row.event)).toEqual(lines.slice(0, -1));
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('pages through a long session by seq, from any seq', async () => {
    const store = await freshStore({ pageSize: 3 });
    const events = Array.from({ length: 10 }, (_, index) => itemsAppended([user(`i${index}`)]));
    const written = await store.append('s1', events);
    expect(await collect(store.read('s1'))).toEqual(written);
    expect((await collect(store.read('s1', { fromSeq: 4 }))).map((event) => event.seq)).toEqual([
      4, 5, 6, 7, 8, 9, 10,
    ]);
    expect(await collect(store.read('s1', { fromSeq: 11 }))).toEqual([]);
  });
});

describe('PostgresSessionStore rows edited outside the store', () => {
  async function storeWithRows(): Promise<{ store: PostgresSessionStore; table: string }> {
    const table = `edited_${tables + 1}`;
    const store = await freshStore({ table });
    await store.append('s1', [
      itemsAppended([user('a')]),
      itemsAppended([user('b')]),
      { type: 'run-finished', runId: 'r', outcome: 'completed', steps: 1 },
    ]);
    return { store, table };
  }

  it.each([
    [
      'a changed character',
      (table: string) =>
        `UPDATE ${table} SET event = replace(event::text, '"b"', '"c"')::json WHERE seq = 2`,
      'corrupt_log',
      /checksum does not match/,
    ],
    [
      'a missing row',
      (table: string) => `DELETE FROM ${table} WHERE seq = 2`,
      'store_gap',
      /expected seq 2; the log has a gap/,
    ],
    [
      'a type column that disagrees',
      (table: string) => `UPDATE ${table} SET type = 'run-started' WHERE seq = 2`,
      'corrupt_log',
      /type column/,
    ],
    [
      'a newer schema version',
      (table: string) =>
        `UPDATE ${table} SET event = '{"v":99,"seq":2,"at":"x","type":"items-appended","items":[]}' WHERE seq = 2`,
      'unsupported_schema_version',
      /newer than this loopkeeper/,
    ],
  ])('fails the read with a typed StoreError on %s', async (_label, edit, code, message) => {
    const { store, table } = await storeWithRows();
    await pool.query(edit(table));
    const error = await rejection(collect(store.read('s1')));
    expect(StoreError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code });
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toMatch(/Session s1 in table edited_\d+, row seq/);
  });

  it('reads a version 1 row (no checksum, old spellings) upgraded, like the file store', async () => {
    const { store, table } = await storeWithRows();
    await pool.query(
      `UPDATE ${table} SET event = '{"v":1,"seq":3,"at":"2026-01-01T00:00:00.000Z","type":"run-finished","runId":"r","outcome":"step-limit","steps":1}' WHERE seq = 3`,
    );
    const events = await collect(store.read('s1'));
    expect(events[2]).toMatchObject({ v: 1, outcome: 'step_limit' });
  });
});

describe('PostgresSessionStore with two writers on one session', () => {
  it('lets exactly one of two racing appends with the same expectedSeq win, and never interleaves', async () => {
    const first = await freshStore({ table: 'two_writers' });
    const otherPool = server.pool();
    const blocker = new pg.Client({ connectionString: server.connectionString });
    // Outside the blocker's transaction, which would see one snapshot of pg_stat_activity.
    const observer = new pg.Client({ connectionString: server.connectionString });
    for (const client of [blocker, observer]) {
      client.on('error', () => undefined);
      await client.connect();
    }
    try {
      const second = await freshStore({ pool: otherPool, table: 'two_writers' });
      let lastSeq = 0;
      for (let round = 0; round < 5; round += 1) {
        // An uncommitted row at the next seq holds both inserts after each has checked the
        // last seq: they race for the same seq, as two machines would.
        await blocker.query('BEGIN');
        await blocker.query(
          `INSERT INTO two_writers (session_id, seq, type, event) VALUES ('s1', $1, 'run-started', '{}')`,
          [lastSeq + 1],
        );
        const batch = (writer: string) =>
          [1, 2, 3].map((part) => itemsAppended([user(`${writer}-${round}-${part}`)]));
        const racing = Promise.allSettled([
          first.append('s1', batch('first'), { expectedSeq: lastSeq }),
          second.append('s1', batch('second'), { expectedSeq: lastSeq }),
        ]);
        await insertsWaitingOnLock({ observer, table: 'two_writers', count: 2 });
        await blocker.query('ROLLBACK');
        const results = await racing;
        const won = results.filter((result) => result.status === 'fulfilled');
        const lost = results.flatMap((result) =>
          result.status === 'rejected' ? [result.reason] : [],
        );
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        expect(ConcurrencyError.isInstance(lost[0])).toBe(true);
        expect((lost[0] as Error).message).toMatch(
          new RegExp(`at seq ${lastSeq + 3}, not the expected ${lastSeq}`),
        );
        lastSeq += 3;
      }
      const events = await collect(second.read('s1'));
      expect(events.map((event) => event.seq)).toEqual(
        Array.from({ length: 15 }, (_, index) => index + 1),
      );
      // Every batch lies whole in the log: three events of one writer and one round in a row.
      const authors = events.map((event) =>
        event.type === 'items-appended' ? event.items[0]?.id.replace(/-\d$/, '') : undefined,
      );
      for (let start = 0; start < authors.length; start += 3) {
        expect(new Set(authors.slice(start, start + 3)).size).toBe(1);
      }
    } finally {
      await blocker.end();
      await observer.end();
      await otherPool.end();
    }
  });

  it('refuses an expectedSeq ahead of the session, so no append leaves a gap', async () => {
    const store = await freshStore();
    await store.append('s1', [itemsAppended([user('a')])]);
    const error = await rejection(
      store.append('s1', [itemsAppended([user('b')])], { expectedSeq: 3 }),
    );
    expect(ConcurrencyError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/at seq 1, not the expected 3/);
    expect((await collect(store.read('s1'))).map((event) => event.seq)).toEqual([1]);
  });

  it('gives unconditional appends of two writers distinct, gapless seqs', async () => {
    const first = await freshStore({ table: 'two_unconditional' });
    const otherPool = server.pool();
    try {
      const second = await freshStore({ pool: otherPool, table: 'two_unconditional' });
      await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          (index % 2 === 0 ? first : second).append('s1', [
            itemsAppended([user(`w${index}-a`)]),
            itemsAppended([user(`w${index}-b`)]),
          ]),
        ),
      );
      const events = await collect(first.read('s1'));
      expect(events.map((event) => event.seq)).toEqual(
        Array.from({ length: 40 }, (_, index) => index + 1),
      );
      const ids = events.map((event) =>
        event.type === 'items-appended' ? event.items[0]?.id : '',
      );
      for (let start = 0; start < ids.length; start += 2) {
        expect(ids[start]?.replace(/-a$/, '-b')).toBe(ids[start + 1]);
      }
    } finally {
      await otherPool.end();
    }
  });
});

/** Resolves once `count` backends wait on a lock while running `INSERT INTO <table>`. */
async function insertsWaitingOnLock({
  observer,
  table,
  count = 1,
}: {
  readonly observer: pg.Client;
  readonly table: string;
  readonly count?: number;
}): Promise<void> {
  for (;;) {
    const result = await observer.query(
      `SELECT count(*)::int AS waiting FROM pg_stat_activity
       WHERE wait_event_type = 'Lock' AND query LIKE $1`,
      [`INSERT INTO "${table}"%`],
    );
    if (result.rows[0]?.waiting >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('PostgresSessionStore when the server dies', () => {
  it('leaves no part of a batch the server was killed in the middle of, reports StoreError, and appends again once the server is back', async () => {
    const table = 'killed_mid_append';
    const store = await freshStore({ table });
    await store.append('s1', [itemsAppended([user('a')]), itemsAppended([user('b')])]);
    // Another transaction holds seq 5 uncommitted, so the batch for seqs 3 to 5 writes 3 and 4
    // and then waits on 5: the server dies with part of the batch written.
    const blocker = new pg.Client({
      connectionString: server.connectionString,
    });
    const observer = new pg.Client({
      connectionString: server.connectionString,
    });
    for (const client of [blocker, observer]) {
      client.on('error', () => undefined);
      await client.connect();
    }
    await blocker.query('BEGIN');
    await blocker.query(
      `INSERT INTO "${table}" (session_id, seq, type, event) VALUES ('s1', 5, 'run-started', '{}')`,
    );
    const appending = rejection(
      store.append(
        's1',
        [itemsAppended([user('c')]), itemsAppended([user('d')]), itemsAppended([user('e')])],
        { expectedSeq: 2 },
      ),
    );
    await insertsWaitingOnLock({ observer, table });
    await server.kill();

    const error = await appending;
    expect(StoreError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'io' });
    expect((error as Error).message).toMatch(
      /Cannot append to session s1 \(table killed_mid_append\)/,
    );
    const whileDown = await rejection(collect(store.read('s1')));
    expect(whileDown).toMatchObject({ name: 'StoreError', code: 'io' });

    await server.restart();
    expect((await collect(store.read('s1'))).map((event) => event.seq)).toEqual([1, 2]);
    const again = await store.append('s1', [itemsAppended([user('c')])], { expectedSeq: 2 });
    expect(again.map((event) => event.seq)).toEqual([3]);
    const rows = await pool.query(`SELECT seq FROM "${table}" ORDER BY seq`);
    expect(rows.rows.map((row) => Number(row.seq))).toEqual([1, 2, 3]);
    await blocker.end().catch(() => undefined);
    await observer.end().catch(() => undefined);
  });
});

describe('a loop on PostgresSessionStore whose server goes away mid-run', () => {
  const fakeServer = fakeServerPerTest();

  it('fails the run with a StoreError, keeps the log intact, and the next turn heals the session once the server is back', async () => {
    // The store's own pool: nothing but the store listens to it when the server goes away.
    const store = new PostgresSessionStore({
      connectionString: server.connectionString,
      table: 'loop_run',
    });
    opened.push(store);
    await store.migrate();
    const openai = await fakeServer({
      replies: [
        { toolCalls: [{ id: 'call_1', name: 'deploy', arguments: { target: 'prod' } }] },
        { text: 'Back again.' },
      ],
    });
    const deploy = defineTool({
      name: 'deploy',
      description: 'Deploys.',
      parameters: { type: 'object', properties: { target: { type: 'string' } } },
      // The database dies while the tool runs: its result cannot be logged.
      execute: async () => {
        await server.kill();
        return 'deployed';
      },
    });
    const loop = createAgentLoop({
      model: openAIChatModel({
        baseURL: openai.url,
        apiKey: 'k',
        model: 'gpt-test',
        maxRetries: 0,
      }),
      tools: [deploy],
      store,
      sessionId: 'support-7',
      tokens: await sharedTokenCounter(),
    });
    loop.start();
    const finished = nextEvent(loop, 'RunFinished');
    loop.send({ type: 'user.message', content: 'Deploy it.' });
    const failed = await finished;
    await whenIdle(loop);
    expect(failed).toMatchObject({ outcome: 'failed', error: { name: 'StoreError', code: 'io' } });

    await server.restart();
    const beforeHeal = await readSession(store, 'support-7');
    expect(beforeHeal.map((event) => event.type)).toEqual([
      'run-started',
      'items-appended',
      'usage-reported',
      'items-appended',
      'tool-calls-started',
    ]);

    const next = await runTurn(loop, 'Are you there?');
    expect(next).toMatchObject({ outcome: 'completed', text: 'Back again.' });
    const events = await readSession(store, 'support-7');
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    const closed = events.find((event) => event.type === 'run-finished');
    expect(closed).toMatchObject({ runId: failed.runId, outcome: 'failed' });
    expect(validateTranscript(effectiveHistory(events))).toEqual([]);
    const answer = effectiveHistory(events).find((item) => item.kind === 'toolResult');
    expect(answer).toMatchObject({ callId: 'call_1', isError: true });
    loop.stop();
  });
});

describe('PostgresSessionStore opening a session from its latest compaction marker', () => {
  const TURNS = 8;
  const notes = defineTool({
    name: 'notes',
    description: 'Returns notes for a topic.',
    parameters: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] },
    execute: ({ topic }: { topic: string }) => `notes about ${topic}: ${'detail '.repeat(150)}`,
  });

  /** Two scripted answers per turn: one tool call, then a conclusion. */
  function answersFor(turns: number): ScriptedAnswer[] {
    return Array.from({ length: turns }, (_, turn) => [
      { toolCalls: [{ id: `call_${turn}`, name: 'notes', arguments: { topic: `topic ${turn}` } }] },
      { text: `Conclusion ${turn}: ${'reasoned '.repeat(40)}` },
    ]).flat();
  }

  async function loopOn(store: SessionStore, answers: ScriptedAnswer[]) {
    const tokens = await sharedTokenCounter();
    return openAgentLoop({
      model: new ScriptedModel({ tokens, turns: answers }),
      tools: [notes],
      compactor: createCompactor({
        trigger: tokenBudgetTrigger({ maxTokens: 1_500, targetRatio: 0.5 }),
        backend: extractiveSummarizer(),
        structural: { pruneToolResults: { protectRecentTokens: 200, minSavingsTokens: 10 } },
        summary: { keepRecentTokens: 300 },
      }),
      store,
      sessionId: 'long',
      tokens,
    });
  }

  /** Counts the events a store hands out, whichever way they are asked for. */
  function counting(store: IndexedSessionStore): {
    store: IndexedSessionStore;
    read: () => number;
  } {
    let read = 0;
    const counted: IndexedSessionStore = {
      append: (...args) => store.append(...args),
      list: () => store.list(),
      close: () => store.close(),
      async *read(sessionId, options) {
        for await (const event of store.read(sessionId, options)) {
          read += 1;
          yield event;
        }
      },
      readLatest: async (sessionId, options) => {
        const event = await store.readLatest(sessionId, options);
        if (event !== undefined) read += 1;
        return event;
      },
      countEvents: (sessionId, options) => store.countEvents(sessionId, options),
      readHoldingItems: async (sessionId, options) => {
        const events = await store.readHoldingItems(sessionId, options);
        read += events.length;
        return events;
      },
    };
    return { store: counted, read: () => read };
  }

  it('rebuilds the same projection as a read from seq 1, reading a fraction of the log, and a loop reopened on it goes on', async () => {
    const store = await freshStore({ table: 'resume' });
    const writer = await loopOn(store, answersFor(TURNS));
    writer.start();
    for (let turn = 0; turn < TURNS; turn += 1) {
      expect((await runTurn(writer, `Question ${turn}: ${'context '.repeat(30)}`)).outcome).toBe(
        'completed',
      );
    }
    writer.stop();
    // The last run is left unfinished, as a crash would leave it, to be resumed on the reopen.
    await pool.query(`DELETE FROM resume WHERE seq = (SELECT max(seq) FROM resume)`);
    const events = await readSession(store, 'long');
    const markers = events.filter((event) => event.type === 'transcript-replaced');
    expect(markers.length).toBeGreaterThanOrEqual(2);

    const full = createProjection({ events });
    const { store: counted, read } = counting(store);
    const resumed = await loadProjection({ store: counted, sessionId: 'long' });
    expect(resumed.items).toEqual(full.items);
    expect(resumed.lastSeq).toBe(full.lastSeq);
    expect(resumed.replacements).toBe(full.replacements);
    expect(resumed.latestReplacement).toEqual(full.latestReplacement);
    expect(resumed.latestUsage).toEqual(full.latestUsage);
    expect(resumed.reportedUsage).toEqual(full.reportedUsage);
    for (const item of full.items) {
      expect(resumed.originalOf(item.id)).toEqual(full.originalOf(item.id));
    }
    expect(read()).toBeLessThan(events.length / 2);

    // The loop opens the same way: same history, same run count, the unfinished run closed.
    const copy = new MemorySessionStore();
    await copy.append('long', events as unknown as NewSessionEvent[]);
    const reference = await loopOn(copy, answersFor(1));
    const opening = counting(store);
    const reopened = await loopOn(opening.store, answersFor(1));
    expect(opening.read()).toBeLessThan(events.length / 2);
    expect(reopened.session.items).toEqual(reference.session.items);
    expect(reopened.session.runs).toBe(reference.session.runs);
    expect(reopened.session.lastSeq).toBe(reference.session.lastSeq);
    // The unfinished run is known as a read from seq 1 knows it (its steps too, when it began
    // before the marker), and it is resumed in place: its answer was logged, so it completes.
    expect(reopened.session.unfinishedRun).not.toBeNull();
    expect(reopened.session.unfinishedRun).toEqual(reference.session.unfinishedRun);
    reopened.start();
    const continued = await resumeRun(reopened);
    expect(continued).toMatchObject({
      outcome: 'completed',
      runId: reference.session.unfinishedRun?.runId,
    });
    const next = await runTurn(reopened, 'One more.');
    expect(next.outcome).toBe('completed');
    const after = await readSession(store, 'long');
    expect(validateTranscript(effectiveHistory(after))).toEqual([]);
    reopened.stop();
    reference.stop();
  });

  it('keeps what chained placeholders stand in for, and refs to an earlier summary, as a read from seq 1 does', async () => {
    const store = await freshStore({ table: 'resume_chain' });
    const call = (id: string) =>
      ({
        kind: 'assistant',
        id: `a-${id}`,
        toolCalls: [{ id, name: 'ls', arguments: '{}' }],
      }) as const;
    const result = (id: string, callId: string, content: string) =>
      ({ kind: 'toolResult', id, callId, toolName: 'ls', content, isError: false }) as const;
    const filler = Array.from({ length: 30 }, (_, index) => itemsAppended([user(`old-${index}`)]));
    await store.append('s1', [
      ...filler,
      itemsAppended([user('goal'), call('c1'), result('r1', 'c1', 'full output')]),
      { type: 'usage-reported', model: 'm', promptTokens: 10, completionTokens: 1 },
    ]);
    const summary = {
      kind: 'context',
      id: 'sum-1',
      name: 'loopkeeper:compaction_summary',
      text: 'summary',
    } as const;
    await store.append('s1', [
      {
        ...replacementOf(31),
        view: [
          { item: summary },
          { ref: 'goal' },
          { ref: 'a-c1' },
          { item: result('r1-pruned', 'c1', '[pruned]'), replaces: 'r1' },
        ],
      },
      itemsAppended([user('next')]),
    ]);
    await store.append('s1', [
      {
        ...replacementOf(34),
        view: [
          { ref: 'sum-1' },
          { ref: 'goal' },
          { ref: 'a-c1' },
          { item: result('r1-pruned-again', 'c1', '[pruned again]'), replaces: 'r1-pruned' },
          { ref: 'next' },
        ],
      },
      itemsAppended([user('after')]),
    ]);
    const events = await readSession(store, 's1');
    const full = createProjection({ events });
    const resumed = await loadProjection({ store, sessionId: 's1' });
    expect(resumed.items).toEqual(full.items);
    expect(resumed.items.map((item) => item.id)).toEqual([
      'sum-1',
      'goal',
      'a-c1',
      'r1-pruned-again',
      'next',
      'after',
    ]);
    expect(full.originalOf('r1-pruned-again')).toMatchObject({ id: 'r1', content: 'full output' });
    expect(resumed.originalOf('r1-pruned-again')).toEqual(full.originalOf('r1-pruned-again'));
    expect(resumed.replacements).toBe(2);
    expect(resumed.latestUsage).toEqual(full.latestUsage);
    expect(resumed.lastSeq).toBe(full.lastSeq);
  });
});

/** A compaction marker covering the log through `throughSeq`, its view set by the caller. */
function replacementOf(throughSeq: number) {
  return replacement({ throughSeq, view: [] });
}
