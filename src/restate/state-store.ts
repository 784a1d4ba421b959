import type { ObjectContext, ObjectSharedContext } from '@restatedev/restate-sdk';
import { ConcurrencyError } from '../errors/concurrency-error.js';
import { describeThrownText } from '../errors/describe-thrown.js';
import { isErrorCodeOf } from '../errors/error-codes.js';
import { LoopkeeperError } from '../errors/loopkeeper-error.js';
import { StoreError } from '../errors/store-error.js';
import type { NewSessionEvent, SessionEvent } from '../log/events.js';
import { freezeDeep } from '../log/freeze-deep.js';
import { jsonEqual } from '../log/json-equal.js';
import { stampEvents } from '../log/stamp-events.js';
import type { AppendOptions, ReadOptions, SessionStore } from '../log/store.js';
import type { DurableSteps, StepOutcome } from './durable-steps.js';
import { stateKeys } from './state-keys.js';

export interface RestateStateStoreOptions {
  readonly context: ObjectContext;
  readonly sessionId: string;
  readonly steps: DurableSteps;
  /** Awaited after every append, before it returns (the telemetry flush). */
  readonly afterAppend?: () => Promise<void>;
}

/**
 * A `SessionStore` over one Virtual Object's state: event `n` under `event:n`, the last seq
 * under `lastSeq`. Stamping (`seq`, `at`) runs as a journaled step and the state writes use
 * its recorded result, so a retried invocation writes byte-identical events; an append whose
 * events are already stored at those seqs returns them and writes nothing.
 */
export class RestateStateStore implements SessionStore {
  readonly #context: ObjectContext;
  readonly #sessionId: string;
  readonly #steps: DurableSteps;
  readonly #afterAppend: () => Promise<void>;
  readonly #events = new Map<number, SessionEvent>();
  #lastSeq: number | undefined;

  constructor({ context, sessionId, steps, afterAppend }: RestateStateStoreOptions) {
    this.#context = context;
    this.#sessionId = sessionId;
    this.#steps = steps;
    this.#afterAppend = afterAppend ?? (() => Promise.resolve());
  }

  async append(
    sessionId: string,
    events: readonly NewSessionEvent[],
    options: AppendOptions = {},
  ): Promise<readonly SessionEvent[]> {
    this.#assertOwnSession(sessionId);
    const lastSeq = await this.#readLastSeq();
    const { expectedSeq } = options;
    if (expectedSeq !== undefined && expectedSeq !== lastSeq) {
      const stored = await this.#alreadyStored(events, expectedSeq, lastSeq);
      if (stored !== undefined) return stored;
      throw new ConcurrencyError(
        `Session ${sessionId}: expected last seq ${expectedSeq}, the object's log is at ${lastSeq}`,
      );
    }
    const outcome = await this.#steps.record(`log append ${lastSeq + 1}`, async () =>
      stampOutcome(events, lastSeq),
    );
    if (!outcome.ok) {
      const { code } = outcome.error;
      throw new StoreError(outcome.error.message, {
        code: isErrorCodeOf('StoreError', code) ? code : 'store',
      });
    }
    const stamped = freezeDeep(outcome.value);
    for (const event of stamped) {
      this.#context.set(stateKeys.event(event.seq), event);
      this.#events.set(event.seq, event);
    }
    this.#lastSeq = lastSeq + stamped.length;
    this.#context.set(stateKeys.lastSeq, this.#lastSeq);
    await this.#afterAppend();
    return stamped;
  }

  async *read(sessionId: string, { fromSeq = 1 }: ReadOptions = {}): AsyncIterable<SessionEvent> {
    this.#assertOwnSession(sessionId);
    const lastSeq = await this.#readLastSeq();
    for (let seq = Math.max(1, fromSeq); seq <= lastSeq; seq += 1) {
      yield await this.#readEvent(seq);
    }
  }

  /** One object holds one session: the others live under other keys. */
  async list(): Promise<readonly string[]> {
    return (await this.#readLastSeq()) > 0 ? [this.#sessionId] : [];
  }

  async close(): Promise<void> {}

  /** The events of an append that was already applied, when the stored ones at its seqs match. */
  async #alreadyStored(
    events: readonly NewSessionEvent[],
    expectedSeq: number,
    lastSeq: number,
  ): Promise<readonly SessionEvent[] | undefined> {
    if (events.length === 0 || expectedSeq + events.length > lastSeq) return undefined;
    const stored: SessionEvent[] = [];
    for (const [index, event] of events.entries()) {
      const existing = await this.#readEvent(expectedSeq + index + 1);
      const { v: _v, seq: _seq, at: _at, ...content } = existing;
      if (!jsonEqual(content, event)) return undefined;
      stored.push(existing);
    }
    return stored;
  }

  async #readLastSeq(): Promise<number> {
    this.#lastSeq ??= (await this.#context.get<number>(stateKeys.lastSeq)) ?? 0;
    return this.#lastSeq;
  }

  async #readEvent(seq: number): Promise<SessionEvent> {
    const cached = this.#events.get(seq);
    if (cached !== undefined) return cached;
    const event = await readStoredEvent(this.#context, this.#sessionId, seq);
    this.#events.set(seq, event);
    return event;
  }

  #assertOwnSession(sessionId: string): void {
    if (sessionId !== this.#sessionId) {
      throw new StoreError(
        `This store serves session ${this.#sessionId} (its object key), not ${sessionId}`,
        { code: 'store_wrong_session' },
      );
    }
  }
}

/** Reads an object's stored events (all, or a page), for the shared (read-only) handlers. */
export async function readStoredEvents(
  context: ObjectSharedContext,
  sessionId: string,
  { fromSeq = 1, limit = Number.POSITIVE_INFINITY }: { fromSeq?: number; limit?: number } = {},
): Promise<SessionEvent[]> {
  const lastSeq = (await context.get<number>(stateKeys.lastSeq)) ?? 0;
  const events: SessionEvent[] = [];
  for (let seq = fromSeq; seq <= lastSeq && events.length < limit; seq += 1) {
    events.push(await readStoredEvent(context, sessionId, seq));
  }
  return events;
}

async function readStoredEvent(
  context: ObjectSharedContext,
  sessionId: string,
  seq: number,
): Promise<SessionEvent> {
  const event = await context.get<SessionEvent>(stateKeys.event(seq));
  if (event === null || event.seq !== seq) {
    throw new StoreError(`Session ${sessionId}: event ${seq} is missing from the object's state`, {
      code: 'store_gap',
    });
  }
  return freezeDeep(event);
}

function stampOutcome(
  events: readonly NewSessionEvent[],
  lastSeq: number,
): StepOutcome<readonly SessionEvent[]> {
  try {
    return { ok: true, value: stampEvents({ events, lastSeq, now: new Date() }).events };
  } catch (error) {
    const code = LoopkeeperError.isInstance(error) ? error.code : 'store';
    return { ok: false, error: { name: 'StoreError', code, message: describeThrownText(error) } };
  }
}
