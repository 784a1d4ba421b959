import { StoreError } from '../errors/index.js';
import type { SessionEvent } from '../log/events.js';
import { freezeDeep } from '../log/freeze-deep.js';
import { parseStoredLine } from '../log/stored-line.js';

/** A row as the read query selects it: `seq` (a bigint, which pg hands over as text) and `event` as its stored JSON text. */
export interface EventRow {
  readonly seq: string;
  readonly type: string;
  readonly event: string;
}

/**
 * A stored row as its event, checked like a line of a file log (checksum, schema version, seq,
 * type; older versions upgraded), and against its own columns: a row whose `seq` is not the one
 * expected (a gap) or whose columns disagree with its JSON was edited outside the store, and
 * fails with `StoreError` naming the session and seq rather than being skipped.
 */
export function eventOfRow({
  row,
  sessionId,
  table,
  expectedSeq,
}: {
  readonly row: EventRow;
  readonly sessionId: string;
  readonly table: string;
  readonly expectedSeq: number;
}): SessionEvent {
  const where = `Session ${sessionId} in table ${table}, row seq ${row.seq}`;
  if (Number(row.seq) !== expectedSeq) {
    throw new StoreError(`${where}: expected seq ${expectedSeq}; the log has a gap`, {
      code: 'store_gap',
    });
  }
  const event = parseStoredLine({ line: Buffer.from(row.event, 'utf8'), where, expectedSeq });
  if (event.type !== row.type) {
    throw new StoreError(
      `${where}: the type column says ${JSON.stringify(row.type)} but the event is ${JSON.stringify(event.type)}`,
      { code: 'corrupt_log' },
    );
  }
  return freezeDeep(event);
}
