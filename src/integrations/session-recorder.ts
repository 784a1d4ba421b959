import type { NewSessionEvent, SessionEvent } from '../log/events.js';
import type { SessionStore } from '../log/store.js';

/**
 * Appends an AI SDK run's events to one session of a store, each batch conditional on the seq
 * it last saw, so a second writer on the same session fails (`ConcurrencyError`) instead of
 * interleaving.
 */
export class SessionRecorder {
  readonly #store: SessionStore;
  readonly sessionId: string;
  #lastSeq: number | undefined;

  constructor({ store, sessionId }: { readonly store: SessionStore; readonly sessionId: string }) {
    this.#store = store;
    this.sessionId = sessionId;
  }

  /** Seq of the last event of the session (read from the store once). */
  async lastSeq(): Promise<number> {
    if (this.#lastSeq === undefined) {
      let last = 0;
      for await (const event of this.#store.read(this.sessionId)) last = event.seq;
      this.#lastSeq = last;
    }
    return this.#lastSeq;
  }

  async append(events: readonly NewSessionEvent[]): Promise<readonly SessionEvent[]> {
    if (events.length === 0) return [];
    const expectedSeq = await this.lastSeq();
    const stored = await this.#store.append(this.sessionId, events, { expectedSeq });
    this.#lastSeq = stored[stored.length - 1]?.seq ?? expectedSeq;
    return stored;
  }
}
