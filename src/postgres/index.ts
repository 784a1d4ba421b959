/**
 * The `loopkeeper/postgres` entry: a `SessionStore` in PostgreSQL. Needs the optional peer
 * dependency `pg`; the core entry never imports it.
 */
export {
  PostgresSessionStore,
  type PostgresSessionStoreOptions,
} from './postgres-session-store.js';
