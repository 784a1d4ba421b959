import type { Item, SessionEvent } from 'loopkeeper';
import {
  type NewSessionEvent,
  SESSION_SCHEMA_VERSION,
  type TranscriptReplacedEvent,
  type ViewEntry,
} from 'loopkeeper/log';

/** Builders for session events in tests and benchmarks. */

export const FIXED_TIME = new Date('2026-11-29T12:00:00.000Z');

export function itemsAppended(items: readonly Item[]): NewSessionEvent {
  return { type: 'items-appended', items };
}

export function replacement({
  throughSeq,
  view,
}: {
  readonly throughSeq: number;
  readonly view: readonly ViewEntry[];
}): Omit<TranscriptReplacedEvent, 'v' | 'seq' | 'at'> {
  return {
    type: 'transcript-replaced',
    throughSeq,
    view,
    reason: 'threshold',
    tier: 'structural',
    strategies: ['test'],
    tokensBefore: 100,
    tokensAfter: 50,
  };
}

/** Stamps events as a store would, seqs continuing after `lastSeq`. */
export function stamped(events: readonly NewSessionEvent[], lastSeq = 0): SessionEvent[] {
  return events.map(
    (event, index) =>
      ({
        ...event,
        v: SESSION_SCHEMA_VERSION,
        seq: lastSeq + index + 1,
        at: FIXED_TIME.toISOString(),
      }) as SessionEvent,
  );
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const values: T[] = [];
  for await (const value of iterable) values.push(value);
  return values;
}
