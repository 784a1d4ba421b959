import { StoreError } from '../../src/errors/store-error.js';
import type { NewSessionEvent, SessionEvent } from '../../src/log/events.js';
import type { AppendOptions, ReadOptions, SessionStore } from '../../src/log/store.js';

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
