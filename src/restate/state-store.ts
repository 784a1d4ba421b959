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
import { describeBytes, jsonBytes, type LoopObjectLimits } from './limits.js';
import { readEventRange, readHead, type SessionHead } from './session-head.js';
import { stateKeys } from './state-keys.js';

/**
 * What the append that closes a run (synthetic tool results, `run-finished`) may add past
 * `maxSessionBytes`: it must land, or the session would stay with an open run.
 */
const CLOSING_ALLOWANCE_BYTES = 64 * 1024;

export interface RestateStateStoreOptions {
  readonly context: ObjectContext;
  readonly sessionId: string;
  readonly steps: DurableSteps;
  readonly limits: Required<LoopObjectLimits>;
  /** The head the handler already read, so the store does not read it again. */
  readonly head?: { readonly head: SessionHead; readonly migrated: boolean };
  /** Awaited after every append, before it returns (the telemetry flush). */
  readonly afterAppend?: () => Promise<void>;
}

/**
 * A `SessionStore` over one Virtual Object's state: event `n` under `event:n`, the head
 * (`lastSeq`, `logBytes`) under `head`, so an append writes its events and the head and reads
 * nothing else. Stamping (`seq`, `at`) runs as a journaled step and the state writes use its
 * recorded result, so a retried invocation writes byte-identical events; an append whose events
 * are already stored at those seqs returns them and writes nothing. Appends over the size limits
 * are refused before anything is journaled.
 */
export class RestateStateStore implements SessionStore {
  readonly #context: ObjectContext;
  readonly #sessionId: string;
  readonly #steps: DurableSteps;
  readonly #limits: Required<LoopObjectLimits>;
  readonly #afterAppend: () => Promise<void>;
  readonly #events = new Map<number, SessionEvent>();
  #head: SessionHead | undefined;
  #known: { readonly head: SessionHead; readonly migrated: boolean } | undefined;

  constructor({ context, sessionId, steps, limits, head, afterAppend }: RestateStateStoreOptions) {
    this.#known = head;
    this.#context = context;
    this.#sessionId = sessionId;
    this.#steps = steps;
    this.#limits = limits;
    this.#afterAppend = afterAppend ?? (() => Promise.resolve());
  }

  async append(
    sessionId: string,
    events: readonly NewSessionEvent[],
    options: AppendOptions = {},
  ): Promise<readonly SessionEvent[]> {
    this.#assertOwnSession(sessionId);
    const head = await this.head();
    const { lastSeq } = head;
    const { expectedSeq } = options;
    if (expectedSeq !== undefined && expectedSeq !== lastSeq) {
      const stored = await this.#alreadyStored(events, expectedSeq, lastSeq);
      if (stored !== undefined) return stored;
      throw new ConcurrencyError(
        `Session ${sessionId}: expected last seq ${expectedSeq}, the object's log is at ${lastSeq}`,
      );
    }
    this.#assertWithinLimits(events, head);
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
    let { logBytes } = head;
    for (const event of stamped) {
      this.#context.set(stateKeys.event(event.seq), event);
      this.#events.set(event.seq, event);
      logBytes += jsonBytes(event);
    }
    this.#writeHead({ v: 1, lastSeq: lastSeq + stamped.length, logBytes });
    await this.#afterAppend();
    return stamped;
  }

  async *read(sessionId: string, { fromSeq = 1 }: ReadOptions = {}): AsyncIterable<SessionEvent> {
    this.#assertOwnSession(sessionId);
    const { lastSeq } = await this.head();
    let seq = Math.max(1, fromSeq);
    // The events this invocation already holds need no state read.
    for (; seq <= lastSeq && this.#events.has(seq); seq += 1) {
      yield this.#events.get(seq) as SessionEvent;
    }
    if (seq > lastSeq) return;
    for (const event of await readEventRange(this.#context, { fromSeq: seq, toSeq: lastSeq })) {
      this.#events.set(event.seq, event);
      yield event;
    }
  }

  /** One object holds one session: the others live under other keys. */
  async list(): Promise<readonly string[]> {
    return (await this.head()).lastSeq > 0 ? [this.#sessionId] : [];
  }

  async close(): Promise<void> {}

  /**
   * The head, read once per invocation; a session of the first layout (only `lastSeq`) gets
   * its head written now, so it is migrated by its first `send` and read cheaply after.
   */
  async head(): Promise<SessionHead> {
    if (this.#head !== undefined) return this.#head;
    const { head, migrated } = this.#known ?? (await readHead(this.#context));
    if (migrated) this.#writeHead(head);
    this.#head = head;
    return head;
  }

  #writeHead(head: SessionHead): void {
    this.#head = head;
    this.#context.set(stateKeys.head, head);
    this.#context.clear(stateKeys.lastSeq);
  }

  /** Refuses, before anything is journaled, an append Restate could not store or carry. */
  #assertWithinLimits(events: readonly NewSessionEvent[], head: SessionHead): void {
    const { maxEntryBytes, maxSessionBytes } = this.#limits;
    const bytes = jsonBytes(events);
    if (bytes > maxEntryBytes) {
      throw new StoreError(
        `Session ${this.#sessionId}: an append of ${describeBytes(bytes)} is over the ${describeBytes(maxEntryBytes)} limit of one entry (maxEntryBytes)`,
        { code: 'value_too_large' },
      );
    }
    const closing =
      bytes <= CLOSING_ALLOWANCE_BYTES && events.some((event) => event.type === 'run-finished');
    if (head.logBytes + bytes > maxSessionBytes && !closing) {
      throw new StoreError(
        `Session ${this.#sessionId} is full: its log holds ${describeBytes(head.logBytes)}, and ${describeBytes(bytes)} more would pass the ${describeBytes(maxSessionBytes)} limit (maxSessionBytes)`,
        { code: 'session_full' },
      );
    }
  }

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

  async #readEvent(seq: number): Promise<SessionEvent> {
    const cached = this.#events.get(seq);
    if (cached !== undefined) return cached;
    const [event] = await readEventRange(this.#context, { fromSeq: seq, toSeq: seq });
    this.#events.set(seq, event as SessionEvent);
    return event as SessionEvent;
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
  { fromSeq = 1, limit = Number.POSITIVE_INFINITY }: { fromSeq?: number; limit?: number } = {},
): Promise<SessionEvent[]> {
  const { head } = await readHead(context, { countBytes: false });
  const toSeq = Math.min(head.lastSeq, fromSeq + limit - 1);
  return toSeq < fromSeq ? [] : await readEventRange(context, { fromSeq, toSeq });
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
