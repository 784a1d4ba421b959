import { type SessionEvent, type SessionStore, StoreError } from 'loopkeeper';
import type { AppendOptions, NewSessionEvent, ReadOptions } from 'loopkeeper/log';

/**
 * Wraps a store and fails every append `shouldFail` picks, as a full disk would: nothing of
 * that batch is written, and later appends go through again.
 */
export class FailingStore implements SessionStore {
  readonly #inner: SessionStore;
  readonly #shouldFail: (events: readonly NewSessionEvent[]) => boolean;

  constructor({
    inner,
    shouldFail,
  }: {
    readonly inner: SessionStore;
    /** Asked once per append, in order. */
    readonly shouldFail: (events: readonly NewSessionEvent[]) => boolean;
  }) {
    this.#inner = inner;
    this.#shouldFail = shouldFail;
  }

  append(
    sessionId: string,
    events: readonly NewSessionEvent[],
    options?: AppendOptions,
  ): Promise<readonly SessionEvent[]> {
    if (this.#shouldFail(events)) {
      return Promise.reject(
        new StoreError('Cannot append to session log: ENOSPC: no space left on device', {
          code: 'io',
        }),
      );
    }
    return this.#inner.append(sessionId, events, options);
  }

  read(sessionId: string, options?: ReadOptions): AsyncIterable<SessionEvent> {
    return this.#inner.read(sessionId, options);
  }

  list(): Promise<readonly string[]> {
    return this.#inner.list();
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}
