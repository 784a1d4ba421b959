import { ConfigError } from '../errors/index.js';

/** Longest table name: the indexes are named after it, and PostgreSQL cuts names at 63 bytes. */
const MAX_TABLE_LENGTH = 48;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The events table as SQL: quoted identifiers, checked first, so no name is ever spliced raw. */
export interface TableName {
  /** `"schema"."table"` or `"table"`. */
  readonly sql: string;
  /** The index by session, type and seq, quoted. */
  readonly typeIndex: string;
  /** The index by held item ids, quoted. */
  readonly itemIndex: string;
  /** As the user wrote it, for messages. */
  readonly text: string;
}

export function tableName({
  table,
  schema,
}: {
  readonly table: unknown;
  readonly schema: unknown;
}): TableName {
  const name = identifier({ value: table, what: 'table', maxLength: MAX_TABLE_LENGTH });
  const space =
    schema === undefined ? undefined : identifier({ value: schema, what: 'schema', maxLength: 63 });
  return {
    sql: space === undefined ? quote(name) : `${quote(space)}.${quote(name)}`,
    typeIndex: quote(`${name}_by_type`),
    itemIndex: quote(`${name}_by_item`),
    text: space === undefined ? name : `${space}.${name}`,
  };
}

function identifier({
  value,
  what,
  maxLength,
}: {
  readonly value: unknown;
  readonly what: string;
  readonly maxLength: number;
}): string {
  if (typeof value === 'string' && value.length <= maxLength && IDENTIFIER.test(value)) {
    return value;
  }
  throw new ConfigError(
    `PostgresSessionStore ${what} must be 1 to ${maxLength} letters, digits or '_', not starting with a digit; got ${JSON.stringify(value) ?? String(value)}`,
    { code: 'config_invalid_option' },
  );
}

function quote(identifier: string): string {
  return `"${identifier}"`;
}
