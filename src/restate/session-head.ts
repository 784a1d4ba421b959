import { type ObjectSharedContext, RestatePromise } from '@restatedev/restate-sdk';
import { StoreError } from '../errors/store-error.js';
import type { SessionEvent } from '../log/events.js';
import { freezeDeep } from '../log/freeze-deep.js';
import { jsonBytes } from './limits.js';
import { stateKeys } from './state-keys.js';

/**
 * The small state value every handler reads first: where the log ends and how large it is, so
 * no handler has to read the events to know either.
 *
 * Versions: 1, `{v, lastSeq, logBytes}` (sessions of the first layout kept only `lastSeq`
 * and are migrated on their next `send`); 2 adds `counts`, and the log is indexed (a session
 * of version 1 is indexed by its next `send`, which reads its log once).
 */
export interface SessionHead {
  readonly v: 1 | 2;
  readonly lastSeq: number;
  /** Bytes of JSON of every event in the log. */
  readonly logBytes: number;
  /**
   * Version 2: how many events of each indexed type the log holds (see `INDEXED_TYPES`); their
   * seqs are under `index:<type>:<chunk>`, and each item's event under `item:<id>`.
   */
  readonly counts?: Readonly<Record<string, number>>;
}

/** Events read per batch of state reads: one round trip each with lazy state. */
const READ_BATCH = 1024;

/**
 * The head, or for a session of the first layout the head rebuilt from its `lastSeq` and its
 * events (`logBytes` then costs one read of the log; `countBytes: false` skips it for readers
 * that only need `lastSeq`).
 */
export async function readHead(
  context: ObjectSharedContext,
  { countBytes = true }: { countBytes?: boolean } = {},
): Promise<{ head: SessionHead; migrated: boolean }> {
  const head = await context.get<SessionHead>(stateKeys.head);
  if (head !== null) return { head, migrated: head.v !== 2 };
  const lastSeq = (await context.get<number>(stateKeys.lastSeq)) ?? 0;
  let logBytes = 0;
  if (countBytes && lastSeq > 0) {
    for (const event of await readEventRange(context, { fromSeq: 1, toSeq: lastSeq })) {
      logBytes += jsonBytes(event);
    }
  }
  return lastSeq > 0
    ? { head: { v: 1, lastSeq, logBytes }, migrated: true }
    : { head: { v: 2, lastSeq: 0, logBytes: 0, counts: {} }, migrated: false };
}

/** Events `fromSeq..toSeq` from state, in batches of parallel reads; a missing one is a gap. */
export async function readEventRange(
  context: ObjectSharedContext,
  { fromSeq, toSeq }: { fromSeq: number; toSeq: number },
): Promise<SessionEvent[]> {
  const events: SessionEvent[] = [];
  for (let start = fromSeq; start <= toSeq; start += READ_BATCH) {
    const end = Math.min(toSeq, start + READ_BATCH - 1);
    const reads = [];
    for (let seq = start; seq <= end; seq += 1) {
      // The SDK's get returns a RestatePromise; awaiting them one by one would cost a round trip each.
      reads.push(
        context.get<SessionEvent>(
          stateKeys.event(seq),
        ) as unknown as RestatePromise<SessionEvent | null>,
      );
    }
    const batch = await RestatePromise.all(reads);
    for (const [offset, event] of batch.entries()) {
      const seq = start + offset;
      if (event === null || event.seq !== seq) {
        throw new StoreError(
          `Session ${context.key}: event ${seq} is missing from the object's state`,
          {
            code: 'store_gap',
          },
        );
      }
      events.push(freezeDeep(event));
    }
  }
  return events;
}

/** The events at `seqs` (any order, no gaps checked beyond each one being present). */
export async function readEvents(
  context: ObjectSharedContext,
  seqs: readonly number[],
): Promise<SessionEvent[]> {
  const events: SessionEvent[] = [];
  for (let start = 0; start < seqs.length; start += READ_BATCH) {
    const batch = seqs.slice(start, start + READ_BATCH);
    const read = await RestatePromise.all(
      batch.map(
        (seq) =>
          context.get<SessionEvent>(
            stateKeys.event(seq),
          ) as unknown as RestatePromise<SessionEvent | null>,
      ),
    );
    for (const [offset, event] of read.entries()) {
      const seq = batch[offset] as number;
      if (event === null || event.seq !== seq) {
        throw new StoreError(
          `Session ${context.key}: event ${seq} is missing from the object's state`,
          {
            code: 'store_gap',
          },
        );
      }
      events.push(freezeDeep(event));
    }
  }
  return events;
}
