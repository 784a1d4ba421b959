import {
  type ObjectContext,
  type ObjectSharedContext,
  RestatePromise,
} from '@restatedev/restate-sdk';
import { ConcurrencyError } from '../errors/concurrency-error.js';
import { isErrorCodeOf } from '../errors/error-codes.js';
import { LoopkeeperError } from '../errors/loopkeeper-error.js';
import { StoreError } from '../errors/store-error.js';
import type { NewSessionEvent, SessionEvent, SessionEventType } from '../log/events.js';
import { freezeDeep } from '../log/freeze-deep.js';
import { jsonEqual } from '../log/json-equal.js';
import { stampEvents } from '../log/stamp-events.js';
import type { AppendOptions, IndexedSessionStore, ReadOptions } from '../log/store.js';
import { describeThrownText } from '../vocabulary/index.js';
import type { DurableSteps, StepOutcome } from './durable-steps.js';
import { describeBytes, jsonBytes, type LoopObjectLimits } from './limits.js';
import { readEventRange, readEvents, readHead, type SessionHead } from './session-head.js';
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
export class RestateStateStore implements IndexedSessionStore {
  readonly #context: ObjectContext;
  readonly #sessionId: string;
  readonly #steps: DurableSteps;
  readonly #limits: Required<LoopObjectLimits>;
  readonly #afterAppend: () => Promise<void>;
  readonly #events = new Map<number, SessionEvent>();
  /** Index chunks read or written by this invocation. */
  readonly #chunks = new Map<string, readonly number[]>();
  #head: SessionHead | undefined;
  /**
   * Reads and appends run one at a time: SDK 1.14 fails an invocation that awaits two of its
   * promises separately at once ("awaitNext already pending"), and a loop's open asks for
   * several index lookups together.
   */
  #reads: Promise<unknown> = Promise.resolve();
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
    return this.#serially(() => this.#append(events, options));
  }

  async #append(
    events: readonly NewSessionEvent[],
    { expectedSeq }: AppendOptions,
  ): Promise<readonly SessionEvent[]> {
    const sessionId = this.#sessionId;
    const head = await this.head();
    const { lastSeq } = head;
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
    const counts = await this.#index(stamped, head.counts ?? {});
    this.#writeHead({ v: 2, lastSeq: lastSeq + stamped.length, logBytes, counts });
    await this.#afterAppend();
    return stamped;
  }

  async *read(sessionId: string, { fromSeq = 1 }: ReadOptions = {}): AsyncIterable<SessionEvent> {
    this.#assertOwnSession(sessionId);
    yield* await this.#serially(() => this.#readFrom(fromSeq));
  }

  /** Events from `fromSeq` on; the ones this invocation already holds need no state read. */
  async #readFrom(fromSeq: number): Promise<SessionEvent[]> {
    const { lastSeq } = await this.head();
    const events: SessionEvent[] = [];
    let seq = Math.max(1, fromSeq);
    for (; seq <= lastSeq && this.#events.has(seq); seq += 1) {
      events.push(this.#events.get(seq) as SessionEvent);
    }
    if (seq > lastSeq) return events;
    for (const event of await readEventRange(this.#context, { fromSeq: seq, toSeq: lastSeq })) {
      this.#events.set(event.seq, event);
      events.push(event);
    }
    return events;
  }

  #serially<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#reads.then(work);
    this.#reads = result.catch(() => undefined);
    return result;
  }

  /** The latest event of an indexed `type` below `beforeSeq`, from the type's index chunks. */
  async readLatest(
    sessionId: string,
    { type, beforeSeq = Number.POSITIVE_INFINITY }: { type: SessionEventType; beforeSeq?: number },
  ): Promise<SessionEvent | undefined> {
    this.#assertOwnSession(sessionId);
    return this.#serially(() => this.#readLatest(type, beforeSeq));
  }

  async #readLatest(type: SessionEventType, beforeSeq: number): Promise<SessionEvent | undefined> {
    const { counts = {} } = await this.head();
    if (!INDEXED_TYPES.has(type)) return this.#scanLatest(type, beforeSeq);
    for (let chunk = chunkOf((counts[type] ?? 0) - 1); chunk >= 0; chunk -= 1) {
      const seqs = await this.#readChunk(type, chunk);
      const seq = seqs.findLast((candidate) => candidate < beforeSeq);
      if (seq !== undefined) return await this.#readEvent(seq);
    }
    return undefined;
  }

  /** How many events of an indexed `type` have a seq below `beforeSeq`. */
  async countEvents(
    sessionId: string,
    { type, beforeSeq = Number.POSITIVE_INFINITY }: { type: SessionEventType; beforeSeq?: number },
  ): Promise<number> {
    this.#assertOwnSession(sessionId);
    return this.#serially(() => this.#countEvents(type, beforeSeq));
  }

  async #countEvents(type: SessionEventType, beforeSeq: number): Promise<number> {
    const { counts = {} } = await this.head();
    if (!INDEXED_TYPES.has(type)) {
      let count = 0;
      for (const event of await this.#readFrom(1)) {
        if (event.type === type && event.seq < beforeSeq) count += 1;
      }
      return count;
    }
    for (let chunk = chunkOf((counts[type] ?? 0) - 1); chunk >= 0; chunk -= 1) {
      const seqs = await this.#readChunk(type, chunk);
      const below = seqs.filter((seq) => seq < beforeSeq).length;
      if (below > 0) return chunk * INDEX_CHUNK + below;
    }
    return 0;
  }

  /** The events at or before `throughSeq` holding one of `ids`, through `item:<id>`. */
  async readHoldingItems(
    sessionId: string,
    { ids, throughSeq }: { readonly ids: readonly string[]; readonly throughSeq: number },
  ): Promise<readonly SessionEvent[]> {
    this.#assertOwnSession(sessionId);
    return this.#serially(() => this.#readHoldingItems(ids, throughSeq));
  }

  async #readHoldingItems(
    ids: readonly string[],
    throughSeq: number,
  ): Promise<readonly SessionEvent[]> {
    await this.head();
    const held = await readValues<number>(
      this.#context,
      ids.map((id) => stateKeys.item(id)),
    );
    const seqs = [...new Set(held.filter((seq): seq is number => seq !== null))]
      .filter((seq) => seq <= throughSeq)
      .sort((left, right) => left - right);
    const missing = seqs.filter((seq) => !this.#events.has(seq));
    for (const event of await readEvents(this.#context, missing))
      this.#events.set(event.seq, event);
    return seqs.map((seq) => this.#events.get(seq) as SessionEvent);
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
    if (!migrated) {
      this.#head = head;
      return head;
    }
    // An earlier layout: index the log once (one read of it), then write the head.
    this.#head = { v: 2, lastSeq: 0, logBytes: 0, counts: {} };
    const events =
      head.lastSeq === 0
        ? []
        : await readEventRange(this.#context, { fromSeq: 1, toSeq: head.lastSeq });
    for (const event of events) this.#events.set(event.seq, event);
    const counts = await this.#index(events, {});
    this.#writeHead({ ...head, v: 2, counts });
    return this.#head;
  }

  /**
   * Writes the index entries of `events` (appended after the log's `counts`): each indexed
   * type's seqs in chunks of `INDEX_CHUNK`, each item's holding event. Returns the new counts.
   */
  async #index(
    events: readonly SessionEvent[],
    before: Readonly<Record<string, number>>,
  ): Promise<Record<string, number>> {
    const counts = { ...before };
    const changed = new Map<string, number[]>();
    for (const event of events) {
      for (const id of heldItemIds(event)) this.#context.set(stateKeys.item(id), event.seq);
      if (!INDEXED_TYPES.has(event.type)) continue;
      const count = counts[event.type] ?? 0;
      const chunk = chunkOf(count);
      const key = stateKeys.index(event.type, chunk);
      let seqs = changed.get(key);
      if (seqs === undefined) {
        seqs = count % INDEX_CHUNK === 0 ? [] : [...(await this.#readChunk(event.type, chunk))];
        changed.set(key, seqs);
      }
      seqs.push(event.seq);
      counts[event.type] = count + 1;
    }
    for (const [key, seqs] of changed) {
      this.#context.set(key, seqs);
      this.#chunks.set(key, seqs);
    }
    return counts;
  }

  async #readChunk(type: string, chunk: number): Promise<readonly number[]> {
    const key = stateKeys.index(type, chunk);
    const cached = this.#chunks.get(key);
    if (cached !== undefined) return cached;
    const seqs = (await this.#context.get<number[]>(key)) ?? [];
    this.#chunks.set(key, seqs);
    return seqs;
  }

  async #scanLatest(type: SessionEventType, beforeSeq: number): Promise<SessionEvent | undefined> {
    let latest: SessionEvent | undefined;
    for (const event of await this.#readFrom(1)) {
      if (event.type === type && event.seq < beforeSeq) latest = event;
    }
    return latest;
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

/** The types `resumeProjection` and a loop's open ask for by index. */
const INDEXED_TYPES: ReadonlySet<string> = new Set([
  'transcript-replaced',
  'usage-reported',
  'run-started',
  'run-finished',
]);

/** Seqs per index key: a lookup near the log's end reads one or two small values. */
const INDEX_CHUNK = 256;

const chunkOf = (position: number) => Math.floor(position / INDEX_CHUNK);

/** Ids of the items an event holds whole: appended items, and a marker's inline items. */
function heldItemIds(event: SessionEvent): string[] {
  if (event.type === 'items-appended') return event.items.map((item) => item.id);
  if (event.type === 'transcript-replaced') {
    return event.view.flatMap((entry) => ('item' in entry ? [entry.item.id] : []));
  }
  return [];
}

async function readValues<T>(
  context: ObjectContext,
  keys: readonly string[],
): Promise<(T | null)[]> {
  const reads = keys.map((key) => context.get<T>(key) as unknown as RestatePromise<T | null>);
  return reads.length === 0 ? [] : await RestatePromise.all(reads);
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
