import type { NewSessionEvent, SessionEvent } from './events.js';

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
