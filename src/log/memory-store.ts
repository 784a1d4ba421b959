import { ConcurrencyError, StoreError } from '../errors/index.js';
import type { NewSessionEvent, SessionEvent } from './events.js';
import { assertValidSessionId } from './session-id.js';
import { stampEvents } from './stamp-events.js';
import type { AppendOptions, ReadOptions, SessionStore } from './store.js';
import { assertSeqArgument } from './store-arguments.js';

export interface MemorySessionStoreOptions {
  /** Clock for the `at` stamp; tests pass a fixed one. */
  readonly now?: () => Date;
}

/**
 * A `SessionStore` in process memory, for tests and short-lived hosts. Behaves like the file
 * store (same id rules, same stamping, events stored as their JSON round trip and deep-frozen),
 * minus durability and locking.
 *
 * @example
 * ```ts
 * import { MemorySessionStore } from 'loopkeeper';
 *
 * const store = new MemorySessionStore({ now: () => new Date('2026-01-01T00:00:00Z') });
 * await store.append('s1', [{ type: 'run-started', runId: 'run-1' }], { expectedSeq: 0 });
 * console.log(await store.list()); // ['s1']
 * ```
 */
export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, SessionEvent[]>();
  readonly #now: () => Date;
  #closed = false;

  constructor({ now = () => new Date() }: MemorySessionStoreOptions = {}) {
    this.#now = now;
  }

  async append(
    sessionId: string,
    events: readonly NewSessionEvent[],
    options: AppendOptions = {},
  ): Promise<readonly SessionEvent[]> {
    this.#assertOpen();
    assertValidSessionId(sessionId);
    assertSeqArgument('expectedSeq', options.expectedSeq);
    const stored = this.#sessions.get(sessionId) ?? [];
    const lastSeq = stored.length;
    if (options.expectedSeq !== undefined && options.expectedSeq !== lastSeq) {
      throw new ConcurrencyError(
        `Session ${sessionId} is at seq ${lastSeq}, not the expected ${options.expectedSeq}; nothing was written`,
      );
    }
    const batch = stampEvents({ events, lastSeq, now: this.#now() });
    for (const event of batch.events) stored.push(event);
    this.#sessions.set(sessionId, stored);
    return batch.events;
  }

  read(sessionId: string, options: ReadOptions = {}): AsyncIterable<SessionEvent> {
    this.#assertOpen();
    assertValidSessionId(sessionId);
    assertSeqArgument('fromSeq', options.fromSeq);
    // A snapshot of the length now: a read sees the session as it was when it was asked for.
    const stored = this.#sessions.get(sessionId) ?? [];
    const end = stored.length;
    const start = Math.max((options.fromSeq ?? 1) - 1, 0);
    return (async function* () {
      for (let index = start; index < end; index += 1) {
        yield stored[index] as SessionEvent;
      }
    })();
  }

  async list(): Promise<readonly string[]> {
    this.#assertOpen();
    return [...this.#sessions.keys()].sort();
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  #assertOpen(): void {
    if (this.#closed) {
      throw new StoreError('The session store is closed', { code: 'store_closed' });
    }
  }
}
