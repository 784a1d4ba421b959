import type { StoreErrorCode } from '../errors/error-codes.js';
import { StoreError } from '../errors/index.js';
import { isRecord, shapeProblems } from '../vocabulary/schemas/describe-issues.js';
import { StoredEnvelopeSchema } from '../vocabulary/schemas/session-event.js';
import { SESSION_SCHEMA_VERSION, type SessionEvent } from './events.js';
import { checkSeal } from './line-checksum.js';
import { newEventProblem } from './new-event-problem.js';
import { upgradeStoredEvent } from './upgrade-stored-event.js';

/** The first schema version whose lines carry a checksum; older lines are read without one. */
const FIRST_SEALED_VERSION = 2;

/**
 * One complete (newline-terminated) line of a session log file, or one stored row of another
 * store, as an event. A complete line was written whole, so anything wrong with it is
 * corruption, never a torn write: a checksum that does not match, text that is not JSON, a wrong
 * seq, an unknown type or a newer version all throw `StoreError` naming `where` (the file and
 * 1-based line, or the row). The checksum field is not part of the event.
 */
export function parseStoredLine({
  line,
  where,
  expectedSeq,
}: {
  readonly line: Uint8Array;
  /** Where the line was read, for the error: `Session log <path>, line <n>`. */
  readonly where: string;
  readonly expectedSeq: number;
}): SessionEvent {
  const fail = (problem: string, code: StoreErrorCode = 'corrupt_log'): never => {
    throw new StoreError(`${where}: ${problem}`, { code });
  };
  const seal = checkSeal(line);
  if (seal === 'mismatch') {
    return fail('its checksum does not match, so the line was damaged after it was written');
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(line.buffer, line.byteOffset, line.byteLength).toString('utf8'));
  } catch {
    return fail('not valid JSON, yet complete (it ends with a newline), so it is corruption');
  }
  if (!isRecord(value)) return fail('not an event object');
  const { crc: _checksum, ...fields } = value;
  const version = fields['v'];
  if (typeof version === 'number' && version > SESSION_SCHEMA_VERSION) {
    return fail(
      `schema version ${version} is newer than this loopkeeper understands (${SESSION_SCHEMA_VERSION}); upgrade loopkeeper to read it`,
      'unsupported_schema_version',
    );
  }
  const envelope = shapeProblems(StoredEnvelopeSchema, fields, 'the line');
  if (envelope.length > 0) return fail(envelope.join('; '));
  if ((version as number) >= FIRST_SEALED_VERSION && seal !== 'valid') {
    return fail('its checksum is missing or damaged');
  }
  if (fields['seq'] !== expectedSeq) {
    return fail(`expected seq ${expectedSeq}, found ${JSON.stringify(fields['seq'])}`);
  }
  // A valid checksum proves the line is as written, not that what was written is an event: a
  // forged or buggy line (`items: null`) must fail here, typed, not later as a TypeError.
  const event = upgradeStoredEvent(fields as unknown as SessionEvent, version as number);
  const problem = newEventProblem({ event, seq: expectedSeq });
  return problem === undefined ? event : fail(`not a valid event: ${problem}`);
}
