import pg from 'pg';
import { ConcurrencyError, ConfigError, StoreError } from '../errors/index.js';
import type { NewSessionEvent, SessionEvent, SessionEventType } from '../log/events.js';
import { SerialQueue } from '../log/serial-queue.js';
import { assertValidSessionId } from '../log/session-id.js';
import { stampEvents } from '../log/stamp-events.js';
import type { AppendOptions, IndexedSessionStore, ReadOptions } from '../log/store.js';
import { assertSeqArgument } from '../log/store-arguments.js';
import { heldItemIds, itemIdKey } from './held-item-ids.js';
import { MIGRATE_LOCK_KEY, schemaStatements } from './schema.js';
import { isUniqueViolation, staleSeq, storeFailure } from './store-failure.js';
import { type EventRow, eventOfRow } from './stored-row.js';
import { type TableName, tableName } from './table-name.js';

/** How often an append without `expectedSeq` retries after another writer got in first. */
const UNCONDITIONAL_ATTEMPTS = 50;

export interface PostgresSessionStoreOptions {
  /**
   * A `pg` pool the host owns (the store never ends it), or leave it out and give
   * `connectionString`: the store then makes its own pool and ends it on `close()`.
   */
  readonly pool?: pg.Pool;
  readonly connectionString?: string;
  /** The events table; default `loopkeeper_events`. */
  readonly table?: string;
  /** The PostgreSQL schema of the table; default: the connection's search path (`public`). */
  readonly schema?: string;
  /** Events per query when reading; default 1000. */
  readonly pageSize?: number;
  /** Clock for the `at` stamp; tests pass a fixed one. */
  readonly now?: () => Date;
}

/**
 * A `SessionStore` in PostgreSQL, for hosts that run many processes or machines on one set of
 * sessions. Needs the optional peer dependency `pg` (8.x); import it from `loopkeeper/postgres`.
 *
 * - One append-only table, one row per event, unique on (session, seq). Create it with
 *   `migrate()` (idempotent) before use; nothing happens on import or construction.
 * - An append is one `INSERT` (its own transaction) that writes the whole batch only while the
 *   session's last seq is still the expected one: a stale `expectedSeq` fails with
 *   `ConcurrencyError` and writes nothing, and two writers racing for the same seq cannot both
 *   win (the primary key refuses the second). A batch is all or nothing, also when the server
 *   dies mid-append.
 * - Reads page through the session by seq and check every row as the file store checks a line.
 * - It has the `IndexedSessionStore` ability: a loop opens a session from its latest compaction
 *   marker, reading the marker, the events holding the items it names and the events after it.
 * - Session ids follow the same rules as the other stores and only ever reach SQL as parameters.
 * - Database and connection failures are `StoreError`s (code `io`); the pool replaces a broken
 *   connection, so the next call works again once the server is back.
 *
 * @example
 * ```ts
 * import { createAgentLoop } from 'loopkeeper';
 * import { PostgresSessionStore } from 'loopkeeper/postgres';
 * import { ScriptedModel } from 'loopkeeper/testing';
 *
 * const store = new PostgresSessionStore({ connectionString: 'postgres://app@localhost/app' });
 * await store.migrate(); // once per database; safe to repeat
 * const loop = createAgentLoop({
 *   model: new ScriptedModel({ turns: [] }),
 *   store,
 *   sessionId: 'support-42',
 * });
 * ```
 */
export class PostgresSessionStore implements IndexedSessionStore {
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #table: TableName;
  readonly #pageSize: number;
  readonly #now: () => Date;
  readonly #queue = new SerialQueue();
  // An idle pooled connection the server drops is reported on the pool; unheard, Node would
  // crash the host on it. The pool discards that connection either way.
  readonly #onIdleError = (): void => undefined;
  #closed = false;

  constructor({
    pool,
    connectionString,
    table = 'loopkeeper_events',
    schema,
    pageSize = 1000,
    now = () => new Date(),
  }: PostgresSessionStoreOptions) {
    if ((pool === undefined) === (connectionString === undefined)) {
      throw new ConfigError('PostgresSessionStore needs either a pool or a connectionString', {
        code: 'config_invalid_option',
      });
    }
    if (!Number.isSafeInteger(pageSize) || pageSize < 1) {
      throw new ConfigError(`pageSize must be a whole number of 1 or more, got ${pageSize}`, {
        code: 'config_invalid_option',
      });
    }
    this.#table = tableName({ table, schema });
    this.#pool = pool ?? new pg.Pool({ connectionString });
    this.#ownsPool = pool === undefined;
    this.#pool.on('error', this.#onIdleError);
    this.#pageSize = pageSize;
    this.#now = now;
  }

  /**
   * Creates the events table and its index when they do not exist yet. Idempotent, and safe to
   * call from many processes at once (they take turns on an advisory lock). Call it once at
   * deploy or start-up; the store never changes the schema by itself.
   */
  async migrate(): Promise<void> {
    this.#assertOpen();
    const client = await this.#connect('connect to migrate');
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATE_LOCK_KEY]);
      for (const statement of schemaStatements(this.#table)) await client.query(statement);
      await client.query('COMMIT');
    } catch (cause) {
      broken = await rollBack(client, cause);
      throw storeFailure({ action: 'migrate', table: this.#table.text, cause });
    } finally {
      client.release(broken);
    }
  }

  async append(
    sessionId: string,
    events: readonly NewSessionEvent[],
    options: AppendOptions = {},
  ): Promise<readonly SessionEvent[]> {
    this.#assertOpen();
    assertValidSessionId(sessionId);
    const { expectedSeq } = options;
    assertSeqArgument('expectedSeq', expectedSeq);
    return this.#queue.run(sessionId, async () => {
      if (expectedSeq !== undefined) return this.#insert({ sessionId, events, expectedSeq });
      for (let attempt = 1; ; attempt += 1) {
        const lastSeq = await this.#lastSeq(sessionId);
        try {
          return await this.#insert({ sessionId, events, expectedSeq: lastSeq });
        } catch (error) {
          // Another writer appended between our read and our insert: read again.
          if (attempt >= UNCONDITIONAL_ATTEMPTS || !ConcurrencyError.isInstance(error)) throw error;
        }
      }
    });
  }

  read(sessionId: string, options: ReadOptions = {}): AsyncIterable<SessionEvent> {
    this.#assertOpen();
    assertValidSessionId(sessionId);
    assertSeqArgument('fromSeq', options.fromSeq);
    const first = Math.max(options.fromSeq ?? 1, 1);
    return this.#pages({ sessionId, first });
  }

  async list(): Promise<readonly string[]> {
    this.#assertOpen();
    // A loose index scan: one index probe per session instead of a pass over every event.
    const table = this.#table.sql;
    const result = await this.#query<{ session_id: string }>({
      action: 'list sessions',
      text: `WITH RECURSIVE ids AS (
          (SELECT session_id FROM ${table} ORDER BY session_id LIMIT 1)
          UNION ALL
          SELECT (SELECT t.session_id FROM ${table} t WHERE t.session_id > ids.session_id
                  ORDER BY t.session_id LIMIT 1)
          FROM ids WHERE ids.session_id IS NOT NULL)
        SELECT session_id FROM ids WHERE session_id IS NOT NULL`,
      values: [],
    });
    return result.rows.map((row) => row.session_id);
  }

  async readLatest(
    sessionId: string,
    { type, beforeSeq }: { readonly type: SessionEventType; readonly beforeSeq?: number },
  ): Promise<SessionEvent | undefined> {
    this.#assertOpen();
    assertValidSessionId(sessionId);
    assertSeqArgument('beforeSeq', beforeSeq);
    const result = await this.#query<EventRow>({
      action: `read the latest ${type} of session ${sessionId}`,
      text: `SELECT seq, type, event::text AS event FROM ${this.#table.sql}
             WHERE session_id = $1 AND type = $2 AND seq < $3 ORDER BY seq DESC LIMIT 1`,
      values: [sessionId, type, beforeSeq ?? Number.MAX_SAFE_INTEGER],
    });
    const [row] = result.rows;
    return row === undefined ? undefined : this.#eventOf({ row, sessionId });
  }

  async countEvents(
    sessionId: string,
    { type, beforeSeq }: { readonly type: SessionEventType; readonly beforeSeq?: number },
  ): Promise<number> {
    this.#assertOpen();
    assertValidSessionId(sessionId);
    assertSeqArgument('beforeSeq', beforeSeq);
    const result = await this.#query<{ count: string }>({
      action: `count the ${type} events of session ${sessionId}`,
      text: `SELECT count(*) AS count FROM ${this.#table.sql}
             WHERE session_id = $1 AND type = $2 AND seq < $3`,
      values: [sessionId, type, beforeSeq ?? Number.MAX_SAFE_INTEGER],
    });
    return Number(result.rows[0]?.count ?? 0);
  }

  async readHoldingItems(
    sessionId: string,
    { ids, throughSeq }: { readonly ids: readonly string[]; readonly throughSeq: number },
  ): Promise<readonly SessionEvent[]> {
    this.#assertOpen();
    assertValidSessionId(sessionId);
    assertSeqArgument('throughSeq', throughSeq);
    if (ids.length === 0) return [];
    const result = await this.#query<EventRow>({
      action: `read the events holding items of session ${sessionId}`,
      // No session_id condition: the keys hold the session, and a condition on it would let
      // the planner scan the whole session by the primary key instead of using the item index.
      text: `SELECT seq, type, event::text AS event FROM ${this.#table.sql}
             WHERE item_ids && $1::text[] AND seq <= $2 ORDER BY seq`,
      values: [ids.map((id) => itemIdKey({ sessionId, id })), throughSeq],
    });
    return result.rows.map((row) => this.#eventOf({ row, sessionId }));
  }

  /** Waits for pending appends; then ends the pool if the store made it. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#queue.idle();
    this.#pool.off('error', this.#onIdleError);
    if (!this.#ownsPool) return;
    try {
      await this.#pool.end();
    } catch (cause) {
      throw storeFailure({ action: 'close the pool', table: this.#table.text, cause });
    }
  }

  async #insert({
    sessionId,
    events,
    expectedSeq,
  }: {
    readonly sessionId: string;
    readonly events: readonly NewSessionEvent[];
    readonly expectedSeq: number;
  }): Promise<readonly SessionEvent[]> {
    const batch = stampEvents({ events, lastSeq: expectedSeq, now: this.#now() });
    if (batch.events.length === 0) {
      // Nothing to write, but a stale expectedSeq is still refused, as the other stores do.
      const lastSeq = await this.#lastSeq(sessionId);
      if (lastSeq !== expectedSeq) throw staleSeq({ sessionId, lastSeq, expectedSeq });
      return batch.events;
    }
    const lines = batch.text.split('\n').slice(0, -1);
    const table = this.#table.sql;
    let inserted: number;
    try {
      // One statement: the batch is written whole, and only while the session ends at
      // expectedSeq. Two writers that both saw that seq cannot both insert expectedSeq + 1.
      const result = await this.#pool.query(
        `INSERT INTO ${table} (session_id, seq, type, item_ids, event)
         SELECT $1, batch.seq, batch.type,
           ARRAY(SELECT json_array_elements_text(batch.item_ids::json)), batch.event::json
         FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[])
           AS batch(seq, type, item_ids, event)
         WHERE (SELECT coalesce(max(seq), 0) FROM ${table} WHERE session_id = $1) = $6`,
        [
          sessionId,
          batch.events.map((event) => event.seq),
          batch.events.map((event) => event.type),
          batch.events.map((event) => heldItemIds({ sessionId, event })),
          lines,
          expectedSeq,
        ],
      );
      inserted = result.rowCount ?? 0;
    } catch (cause) {
      if (isUniqueViolation(cause)) {
        // Another writer committed expectedSeq + 1 while this insert ran.
        const lastSeq = await this.#lastSeq(sessionId).catch(() => 'a later seq');
        throw staleSeq({ sessionId, lastSeq, expectedSeq, cause });
      }
      throw storeFailure({
        action: `append to session ${sessionId}`,
        table: this.#table.text,
        cause,
      });
    }
    if (inserted === batch.events.length) return batch.events;
    if (inserted !== 0) {
      throw new StoreError(
        `Appending to session ${sessionId} wrote ${inserted} of ${batch.events.length} events`,
        { code: 'store' },
      );
    }
    throw staleSeq({ sessionId, lastSeq: await this.#lastSeq(sessionId), expectedSeq });
  }

  /** A row read on its own (not in a run from some seq), so only its own seq can be checked. */
  #eventOf({ row, sessionId }: { readonly row: EventRow; readonly sessionId: string }) {
    return eventOfRow({ row, sessionId, table: this.#table.text, expectedSeq: Number(row.seq) });
  }

  async #lastSeq(sessionId: string): Promise<number> {
    const result = await this.#query<{ last: string }>({
      action: `read the last seq of session ${sessionId}`,
      text: `SELECT coalesce(max(seq), 0) AS last FROM ${this.#table.sql} WHERE session_id = $1`,
      values: [sessionId],
    });
    return Number(result.rows[0]?.last ?? 0);
  }

  async *#pages({
    sessionId,
    first,
  }: {
    readonly sessionId: string;
    readonly first: number;
  }): AsyncGenerator<SessionEvent> {
    let next = first;
    for (;;) {
      const page = await this.#query<EventRow>({
        action: `read session ${sessionId}`,
        // Seqs have no gaps, so a page is a seq range: bounded on both ends, its plan reads
        // one page of rows even before the table has statistics.
        text: `SELECT seq, type, event::text AS event FROM ${this.#table.sql}
               WHERE session_id = $1 AND seq >= $2 AND seq < $3 ORDER BY seq`,
        values: [sessionId, next, next + this.#pageSize],
      });
      for (const row of page.rows) {
        yield eventOfRow({ row, sessionId, table: this.#table.text, expectedSeq: next });
        next += 1;
      }
      if (page.rows.length < this.#pageSize) return;
    }
  }

  async #query<Row extends pg.QueryResultRow>({
    action,
    text,
    values,
  }: {
    readonly action: string;
    readonly text: string;
    readonly values: readonly unknown[];
  }): Promise<pg.QueryResult<Row>> {
    try {
      return await this.#pool.query<Row>(text, [...values]);
    } catch (cause) {
      throw storeFailure({ action, table: this.#table.text, cause });
    }
  }

  async #connect(action: string): Promise<pg.PoolClient> {
    try {
      return await this.#pool.connect();
    } catch (cause) {
      throw storeFailure({ action, table: this.#table.text, cause });
    }
  }

  #assertOpen(): void {
    if (this.#closed) {
      throw new StoreError('The session store is closed', { code: 'store_closed' });
    }
  }
}

/** Rolls back after a failed statement; a connection that cannot is handed back as broken. */
async function rollBack(client: pg.PoolClient, cause: unknown): Promise<Error | undefined> {
  try {
    await client.query('ROLLBACK');
    return undefined;
  } catch {
    return cause instanceof Error ? cause : new Error(String(cause));
  }
}
