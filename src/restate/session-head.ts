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
 * and are migrated on their next `send`).
 */
export interface SessionHead {
  readonly v: 1;
  readonly lastSeq: number;
  /** Bytes of JSON of every event in the log. */
  readonly logBytes: number;
}

/** Events read per batch of state reads: one round trip each with lazy state. */
const READ_BATCH = 128;

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
  if (head !== null) return { head, migrated: false };
  const lastSeq = (await context.get<number>(stateKeys.lastSeq)) ?? 0;
  let logBytes = 0;
  if (countBytes && lastSeq > 0) {
    for (const event of await readEventRange(context, { fromSeq: 1, toSeq: lastSeq })) {
      logBytes += jsonBytes(event);
    }
  }
  return { head: { v: 1, lastSeq, logBytes }, migrated: lastSeq > 0 };
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
