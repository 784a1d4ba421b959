import type { TableName } from './table-name.js';

/**
 * The statements `migrate()` runs, in order; each is idempotent. One append-only table holds
 * every session's events, keyed by (session, seq):
 * - `session_id` uses the "C" collation, so `list()` sorts by code point like the other stores,
 *   whatever the database's locale.
 * - `event` is `json`, not `jsonb`: json keeps the text exactly as written, so the checksum
 *   each event carries (the same sealed line the file store writes) can be checked on read, and
 *   strings holding `\u0000` or a lone surrogate escape are kept (jsonb refuses both).
 * - `type` repeats the event's type, and `item_ids` lists the ids of the items an event holds
 *   (appended, or inline in a marker's view): with their indexes a session opens from its latest
 *   compaction marker (`readLatest`, `readHoldingItems`) without reading the events before it.
 *   The item index is updated on insert (`fastupdate = off`): a pending list would be scanned
 *   whole by every lookup until a vacuum merges it.
 */
export function schemaStatements(table: TableName): readonly string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${table.sql} (
      session_id text COLLATE "C" NOT NULL,
      seq bigint NOT NULL CHECK (seq >= 1),
      type text NOT NULL,
      item_ids text[],
      event json NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (session_id, seq)
    )`,
    `CREATE INDEX IF NOT EXISTS ${table.typeIndex} ON ${table.sql} (session_id, type, seq)`,
    `CREATE INDEX IF NOT EXISTS ${table.itemIndex} ON ${table.sql} USING gin (item_ids)
      WITH (fastupdate = off)`,
  ];
}

/** Any constant key: concurrent `migrate()` calls of many processes run one at a time. */
export const MIGRATE_LOCK_KEY = 0x6c6b7067; // 'lkpg'
