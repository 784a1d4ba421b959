import { PostgresSessionStore } from 'loopkeeper/postgres';
import type pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { describeSessionStoreContract } from '../log/session-store-contract.js';
import { FIXED_TIME } from '../support/session-events.js';
import { startPostgres, type TestPostgres } from './support/postgres-server.js';

let server: TestPostgres;
let pool: pg.Pool;
let tables = 0;

beforeAll(async () => {
  server = await startPostgres();
  pool = server.pool();
});

afterAll(async () => {
  await pool?.end();
  await server?.stop();
});

// The same cases as the memory and file stores, against a real server: each case gets its own
// freshly migrated table, so every store starts empty.
describeSessionStoreContract({
  name: 'PostgresSessionStore',
  create: async () => {
    tables += 1;
    const store = new PostgresSessionStore({
      pool,
      table: `contract_${tables}`,
      now: () => FIXED_TIME,
    });
    await store.migrate();
    return store;
  },
});
