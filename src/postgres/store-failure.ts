import { ConcurrencyError, LoopkeeperError, StoreError } from '../errors/index.js';
import { describeThrownText } from '../vocabulary/index.js';

/** PostgreSQL's error codes (SQLSTATE) the store tells apart. */
const UNIQUE_VIOLATION = '23505';
const UNDEFINED_TABLE = '42P01';

/** The SQLSTATE of a thrown database error, if it is one. */
export function sqlState(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const { code } = error as { code: unknown };
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

export function isUniqueViolation(error: unknown): boolean {
  return sqlState(error) === UNIQUE_VIOLATION;
}

/**
 * A failure of the database or the connection as a typed error: a missing table says to run
 * `migrate()`; anything else (a refused or dropped connection, a server shutting down) is a
 * `StoreError` with code `io` that names what was being done. Our own errors pass unchanged.
 */
export function storeFailure({
  action,
  table,
  cause,
}: {
  readonly action: string;
  readonly table: string;
  readonly cause: unknown;
}): LoopkeeperError {
  if (LoopkeeperError.isInstance(cause)) return cause;
  if (sqlState(cause) === UNDEFINED_TABLE) {
    return new StoreError(
      `Cannot ${action}: table ${table} does not exist; call migrate() once before using the store`,
      { code: 'store_not_migrated', cause },
    );
  }
  return new StoreError(`Cannot ${action} (table ${table}): ${describeThrownText(cause)}`, {
    code: 'io',
    cause,
  });
}

export function staleSeq({
  sessionId,
  lastSeq,
  expectedSeq,
  cause,
}: {
  readonly sessionId: string;
  readonly lastSeq: number | string;
  readonly expectedSeq: number;
  readonly cause?: unknown;
}): ConcurrencyError {
  return new ConcurrencyError(
    `Session ${sessionId} is at seq ${lastSeq}, not the expected ${expectedSeq}; nothing was written`,
    cause === undefined ? undefined : { cause },
  );
}
