import { StoreError } from '../errors/index.js';
import { SESSION_EVENT_TYPES, SESSION_SCHEMA_VERSION, type SessionEvent } from './events.js';

/** Fields a stored line may carry; none is trusted until checked. */
interface StoredFields {
  readonly v?: unknown;
  readonly seq?: unknown;
  readonly at?: unknown;
  readonly type?: unknown;
}

/** Returned for a line that is not JSON at all: torn when it is the last line, corrupt otherwise. */
export const UNPARSABLE = Symbol('unparsable line');

/**
 * One line of a session log file as an event. A line that is JSON but not a well-formed event
 * of this schema (wrong seq, unknown type, newer version) is corruption and throws `StoreError`
 * naming the file and 1-based line.
 */
export function parseStoredLine({
  text,
  path,
  lineNumber,
  expectedSeq,
}: {
  readonly text: string;
  readonly path: string;
  readonly lineNumber: number;
  readonly expectedSeq: number;
}): SessionEvent | typeof UNPARSABLE {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return UNPARSABLE;
  }
  const fail = (problem: string, code = 'corrupt_log'): never => {
    throw new StoreError(`Session log ${path}, line ${lineNumber}: ${problem}`, { code });
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail('not an event object');
  }
  const fields = value as StoredFields;
  const version = fields.v;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) {
    return fail(`missing or invalid schema version ${JSON.stringify(version) ?? 'undefined'}`);
  }
  if (version > SESSION_SCHEMA_VERSION) {
    return fail(
      `schema version ${version} is newer than this loopkeeper understands (${SESSION_SCHEMA_VERSION}); upgrade loopkeeper to read it`,
      'unsupported_schema_version',
    );
  }
  if (fields.seq !== expectedSeq) {
    return fail(`expected seq ${expectedSeq}, found ${JSON.stringify(fields.seq) ?? 'none'}`);
  }
  if (typeof fields.at !== 'string') return fail('missing timestamp');
  const type = fields.type;
  if (typeof type !== 'string' || !(SESSION_EVENT_TYPES as readonly string[]).includes(type)) {
    return fail(`unknown event type ${JSON.stringify(type) ?? 'undefined'}`);
  }
  return value as SessionEvent;
}
