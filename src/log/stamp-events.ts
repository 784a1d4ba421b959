import { StoreError } from '../errors/index.js';
import { type NewSessionEvent, SESSION_SCHEMA_VERSION, type SessionEvent } from './events.js';
import { freezeDeep } from './freeze-deep.js';
import { sealLine } from './line-checksum.js';
import { newEventProblem } from './new-event-problem.js';

/** A batch ready to store: the stamped events and their JSONL text (one line each). */
export interface StampedBatch {
  readonly events: readonly SessionEvent[];
  /**
   * Every line ends with its checksum field and a newline, so a batch is complete exactly when
   * its last byte is, and a damaged line is told from a torn one.
   */
  readonly text: string;
}

/**
 * Validates a batch handed to `SessionStore.append` and stamps `v`, `seq` (continuing from
 * `lastSeq`) and `at`. Returned events are the JSON round trip of what is stored, deep-frozen,
 * so every store hands back exactly what a later `read` yields. Throws `StoreError`
 * (`invalid_event`) before anything is written.
 */
export function stampEvents({
  events,
  lastSeq,
  now,
}: {
  readonly events: readonly NewSessionEvent[];
  readonly lastSeq: number;
  readonly now: Date;
}): StampedBatch {
  if (!Array.isArray(events)) {
    throw new StoreError('append expects an array of events', { code: 'invalid_event' });
  }
  const at = isoTime(now);
  const lines: string[] = [];
  const stamped: SessionEvent[] = [];
  for (const [index, event] of events.entries()) {
    const seq = lastSeq + index + 1;
    const problem = newEventProblem({ event, seq });
    if (problem !== undefined) {
      throw new StoreError(`Cannot append event ${index} of the batch: ${problem}`, {
        code: 'invalid_event',
      });
    }
    // Stamped fields first (readable lines); assigning them again overrides any a caller sent.
    const record = Object.assign({ v: SESSION_SCHEMA_VERSION, seq, at }, event, {
      v: SESSION_SCHEMA_VERSION,
      seq,
      at,
    });
    // The checksum is the file store's, added after the record; a caller's own would clash.
    delete (record as { crc?: unknown }).crc;
    const line = toJsonLine({ record, index });
    lines.push(line);
    stamped.push(frozen({ line, index }));
  }
  // Sealed on first read: only the file store writes text, and the checksum (a CRC over the
  // line's UTF-8 bytes) would otherwise cost every in-memory append as much as its JSON.
  let text: string | undefined;
  return {
    events: stamped,
    get text() {
      text ??= lines.map((line) => `${sealLine(line)}\n`).join('');
      return text;
    },
  };
}

/** The last `at` written: appends come many to a millisecond, and `toISOString` costs a microsecond. */
let lastStamp: { readonly time: number; readonly text: string } | undefined;

function isoTime(now: Date): string {
  const time = now.getTime();
  // An invalid date (NaN) never matches, so `toISOString` still throws for it.
  if (lastStamp?.time !== time) lastStamp = { time, text: now.toISOString() };
  return lastStamp.text;
}

/** The stored form of a line, deep-frozen; refused before anything is written if it nests too deep. */
function frozen({ line, index }: { readonly line: string; readonly index: number }): SessionEvent {
  try {
    return freezeDeep(JSON.parse(line) as SessionEvent);
  } catch (cause) {
    throw new StoreError(
      `Cannot append event ${index} of the batch: ${cause instanceof Error ? cause.message : String(cause)}`,
      { code: 'invalid_event', cause },
    );
  }
}

function toJsonLine({
  record,
  index,
}: {
  readonly record: object;
  readonly index: number;
}): string {
  try {
    return JSON.stringify(record);
  } catch (cause) {
    throw new StoreError(
      `Cannot append event ${index} of the batch: it cannot be stored as JSON (${cause instanceof Error ? cause.message : String(cause)})`,
      { code: 'invalid_event', cause },
    );
  }
}
