import type { NewSessionEvent, SessionEvent, SessionEventType } from './events.js';

export interface AppendOptions {
  /**
   * The seq of the last event the writer has seen (0 for an empty session). When it is not the
   * store's current last seq the append fails with `ConcurrencyError` and nothing is written.
   * Omit it to append unconditionally.
   */
  readonly expectedSeq?: number;
}

export interface ReadOptions {
  /** Only events with `seq >= fromSeq`. */
  readonly fromSeq?: number;
}

/** Where session events live. Seqs start at 1 and have no gaps. */
export interface SessionStore {
  append(
    sessionId: string,
    events: readonly NewSessionEvent[],
    options?: AppendOptions,
  ): Promise<readonly SessionEvent[]>;
  read(sessionId: string, options?: ReadOptions): AsyncIterable<SessionEvent>;
  list(): Promise<readonly string[]>;
  /** Releases locks and handles. */
  close(): Promise<void>;
}

/**
 * An optional ability of a `SessionStore` that indexes its events by type and by the item ids
 * they hold. With it a session opens from its latest compaction marker (`resumeProjection`)
 * instead of from seq 1: the marker, the few earlier events holding items its view names, and
 * the events after it. `PostgresSessionStore` has it; the memory and file stores read the log.
 */
export interface IndexedSessionStore extends SessionStore {
  /** The session's last event of `type` with a seq below `beforeSeq` (default: any). */
  readLatest(
    sessionId: string,
    options: { readonly type: SessionEventType; readonly beforeSeq?: number },
  ): Promise<SessionEvent | undefined>;
  /** How many of the session's events are of `type` and have a seq below `beforeSeq`. */
  countEvents(
    sessionId: string,
    options: { readonly type: SessionEventType; readonly beforeSeq?: number },
  ): Promise<number>;
  /**
   * The session's events at or before `throughSeq` that hold an item with one of `ids`
   * (`items-appended` events, and `transcript-replaced` events holding it inline), in seq order.
   */
  readHoldingItems(
    sessionId: string,
    options: { readonly ids: readonly string[]; readonly throughSeq: number },
  ): Promise<readonly SessionEvent[]>;
}

/**
 * Whether `store` has the `IndexedSessionStore` ability.
 *
 * @example
 * ```ts
 * import { isIndexedSessionStore, MemorySessionStore } from 'loopkeeper/log';
 *
 * console.log(isIndexedSessionStore(new MemorySessionStore())); // false: it reads the log
 * ```
 */
export function isIndexedSessionStore(store: SessionStore): store is IndexedSessionStore {
  const candidate = store as Partial<IndexedSessionStore>;
  return (
    typeof candidate.readLatest === 'function' &&
    typeof candidate.countEvents === 'function' &&
    typeof candidate.readHoldingItems === 'function'
  );
}
