import { ArtifactLedger } from '../compaction/ledger/artifact-ledger.js';
import { ConcurrencyError } from '../errors/concurrency-error.js';
import { LoopkeeperError } from '../errors/loopkeeper-error.js';
import { ProtocolError } from '../errors/protocol-error.js';
import { StoreError } from '../errors/store-error.js';
import type { NewSessionEvent, SessionEvent } from '../log/events.js';
import { type ReportedUsage, SessionProjection } from '../log/projection.js';
import { isIndexedSessionStore, type SessionStore } from '../log/store.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import type { TokenCounter, TokenEncoding } from '../tokens/types.js';
import { upperBoundTokens } from '../tokens/upper-bound-tokens.js';
import { checkItem, rememberCheckedItem } from '../transcript/check-item.js';
import { wellFormedValue } from '../transcript/code-points.js';
import type { Item } from '../transcript/types.js';
import { describeThrownText } from '../vocabulary/index.js';
import { applyCheckedLogEvent } from './checked-log-event.js';
import { closingEvents, interruptedRunFinished } from './closing-events.js';
import { guardedTokenCounter } from './guarded-token-counter.js';
import { ProtocolTracker } from './protocol-tracker.js';
import { resumeLoopSession } from './resume-loop-session.js';
import { RunProgress, type UnfinishedRun } from './run-progress.js';

/**
 * What opening a session does with a run a crash left unfinished: `resume` keeps it open so the
 * loop continues it in place (`openAgentLoop`), `fail` closes it as failed with code
 * `interrupted` and answers its open tool calls.
 */
export type InterruptedRunPolicy = 'resume' | 'fail';

export interface LoopSessionOptions {
  readonly store: SessionStore;
  readonly sessionId: string;
  readonly tokens?: TokenCounter | Promise<TokenCounter>;
  readonly encoding?: TokenEncoding;
  /** Default `fail`: a session opened without a loop that resumes runs closes them. */
  readonly interrupted?: InterruptedRunPolicy;
  /**
   * Nothing the loop decides depends on token counts (no compactor, no mutators): the encoding
   * is then loaded only once the history could reach `DEFERRED_ENCODING_TOKENS`, and a request's
   * estimate is an upper bound until then (`requestEstimate`). Ignored when `tokens` is given.
   */
  readonly deferEncoding?: boolean;
}

/**
 * While a loop defers its encoding, the history's upper bound (UTF-8 bytes plus the message
 * overheads) under which the encoding is not loaded: a short exchange or two.
 */
export const DEFERRED_ENCODING_TOKENS = 4_096;

/**
 * The runtime side of one session: the store, the in-memory projection of its log, and the
 * incremental facts (token total, open tool calls) the loop needs per step. All writes go
 * through one queue so an abort can never interleave with an in-flight append.
 *
 * @example
 * ```ts
 * import { LoopSession, MemorySessionStore } from 'loopkeeper';
 *
 * const session = new LoopSession({ store: new MemorySessionStore(), sessionId: 'session-1' });
 * await session.open();
 * console.log(session.items.length, session.lastSeq, session.runs);
 * ```
 */
export class LoopSession {
  readonly sessionId: string;
  readonly store: SessionStore;
  #projection = new SessionProjection();
  #tracker = new ProtocolTracker();
  #progress = new RunProgress();
  #ledger = new ArtifactLedger();
  readonly #interrupted: InterruptedRunPolicy;
  #tokens: Promise<TokenCounter> | undefined;
  readonly #encoding: TokenEncoding;
  readonly #deferEncoding: boolean;
  #counter: TokenCounter | undefined;
  #opened: Promise<void> | undefined;
  #writes: Promise<unknown> = Promise.resolve();
  #activeRunId: string | null = null;
  #resumed: UnfinishedRun | null = null;
  /**
   * Runs of this loop whose `run-started` is in the log and whose `run-finished` is not yet.
   * Made by the first run and dropped when none is left open, so an idle loop holds no set.
   */
  #loggedRuns: Set<string> | undefined;
  #unclosedRun: { runId: string; finished: NewSessionEvent; openCallMessage: string } | undefined;
  #tokenTotal = 0;
  #countedItems = 0;
  #countedEpoch = -1;
  #runs = 0;

  constructor({
    store,
    sessionId,
    tokens,
    encoding = 'o200k_base',
    interrupted = 'fail',
    deferEncoding = false,
  }: LoopSessionOptions) {
    this.store = store;
    this.#interrupted = interrupted;
    this.sessionId = sessionId;
    this.#encoding = encoding;
    this.#deferEncoding = deferEncoding && tokens === undefined;
    if (tokens !== undefined) {
      this.#tokens = guardedTokenCounter(tokens);
      // Awaited by every run; a failure fails those runs, not the host's process meanwhile.
      this.#tokens.catch(() => undefined);
    }
  }

  /** The effective history: what the model sees next. */
  get items(): readonly Item[] {
    return this.#projection.items;
  }

  /**
   * The artifact trail of everything the log holds, folded in as items are appended. An indexed
   * store (PostgreSQL) opens from the latest compaction marker: the ledger then folds the events
   * read from there on, and the earlier trail is the one that marker's summary rendered.
   */
  get ledger(): ArtifactLedger {
    return this.#ledger;
  }

  /** The log's original of an item that stands in for another (a pruned tool result). */
  originalOf(item: Item): Item | undefined {
    return this.#projection.originalOf(item.id);
  }

  get lastSeq(): number {
    return this.#projection.lastSeq;
  }

  get runs(): number {
    return this.#runs;
  }

  /** Provider-reported prompt size of the latest request, while it still describes the history. */
  get reported(): ReportedUsage | undefined {
    return this.#projection.reportedUsage;
  }

  /** Changes whenever a compaction replaced the history (the provider's prefix cache breaks). */
  get epoch(): number {
    return this.#projection.replacements;
  }

  get pendingToolCalls() {
    return this.#tracker.pendingCalls;
  }

  /** What the log says about the run in progress: started calls, approvals, decisions. */
  get progress(): RunProgress {
    return this.#progress;
  }

  /**
   * The run a crash left unfinished, when the session was opened with `interrupted: 'resume'`
   * and no loop has taken it up yet; null otherwise.
   */
  get unfinishedRun(): UnfinishedRun | null {
    return this.#progress.unfinishedRun;
  }

  /** The run this loop took up from the log (`resumeRun`), or null when it took up none. */
  get resumedRun(): UnfinishedRun | null {
    return this.#resumed;
  }

  hasSeenCallId(id: string): boolean {
    return this.#tracker.hasSeenCallId(id);
  }

  /**
   * The session's exact counter. Loaded lazily, at the first call: the encoding costs ~0.5 s and
   * tens of MB, so only a loop that counts pays for it.
   */
  async tokens(): Promise<TokenCounter> {
    if (this.#counter !== undefined) return this.#counter;
    this.#tokens ??= createTokenCounter({ encoding: this.#encoding });
    this.#counter = await this.#tokens;
    return this.#counter;
  }

  /**
   * The effective history's tokens for a request's figures (`InferenceStarted`, the logged
   * estimate): `estimateTokens` with the exact counter, except while the session defers its
   * encoding and the history's upper bound is under `DEFERRED_ENCODING_TOKENS`: then that bound,
   * marked as one, without loading the encoding.
   */
  async requestEstimate(): Promise<{ readonly tokens: number; readonly exact: boolean }> {
    return (
      this.requestEstimateNow() ?? { tokens: this.estimateTokens(await this.tokens()), exact: true }
    );
  }

  /** `requestEstimate` when it needs no waiting (the counter loaded, or the bound enough); else undefined. */
  requestEstimateNow(): { readonly tokens: number; readonly exact: boolean } | undefined {
    if (this.#deferEncoding && this.#counter === undefined) {
      const bound = upperBoundTokens(this.#projection.items);
      if (bound < DEFERRED_ENCODING_TOKENS) return { tokens: bound, exact: false };
    }
    const counter = this.#counter;
    return counter === undefined
      ? undefined
      : { tokens: this.estimateTokens(counter), exact: true };
  }

  /** The counter `tokens()` resolves with, once it has been loaded; undefined before. */
  get loadedTokens(): TokenCounter | undefined {
    return this.#counter;
  }

  /**
   * Reads the log once and rebuilds every fact from it; a run left open by a crash is closed.
   * A failed open is forgotten, with whatever it had read, so the next run reads the log afresh.
   */
  open(): Promise<void> {
    this.#opened ??= this.#load().catch((error: unknown) => {
      this.#forgetLoad();
      throw error;
    });
    return this.#opened;
  }

  #forgetLoad(): void {
    this.#opened = undefined;
    this.#projection = new SessionProjection();
    this.#tracker = new ProtocolTracker();
    this.#progress = new RunProgress();
    this.#ledger = new ArtifactLedger();
    this.#runs = 0;
    this.#countedEpoch = -1;
  }

  async #load(): Promise<void> {
    // An indexed store (PostgreSQL) opens from the latest compaction marker, not from seq 1.
    const resumed = isIndexedSessionStore(this.store)
      ? await resumeLoopSession({ store: this.store, sessionId: this.sessionId })
      : undefined;
    let openRun: string | null = resumed?.openRun ?? null;
    if (resumed !== undefined) {
      this.#projection = resumed.projection;
      this.#runs = resumed.runs;
      await this.#followOpenRunBefore(resumed.openRunSeq, resumed.fromSeq);
    }
    const events =
      resumed === undefined
        ? this.store.read(this.sessionId)
        : this.store.read(this.sessionId, { fromSeq: resumed.fromSeq });
    for await (const event of events) {
      if (resumed !== undefined && event.seq < resumed.markerSeq) this.#applyBeforeMarker(event);
      else this.#applyChecked(event);
      if (event.type === 'run-started') openRun = event.runId;
      else if (event.type === 'run-finished') openRun = null;
    }
    if (openRun !== null && this.#interrupted === 'fail')
      await this.#recoverInterruptedRun(openRun);
  }

  /**
   * A run still open when the log is read from a marker may have started before it: its events
   * up to there are read only for what resume and approvals need to know (started calls,
   * requests, decisions, steps), not for the projection.
   */
  async #followOpenRunBefore(openRunSeq: number | null, fromSeq: number): Promise<void> {
    if (openRunSeq === null || openRunSeq >= fromSeq) return;
    for await (const event of this.store.read(this.sessionId, { fromSeq: openRunSeq })) {
      if (event.seq >= fromSeq) break;
      this.#progress.observe(event);
    }
  }

  /** Applies an event read from the log (on open, or catching up), checked against the protocol. */
  #applyChecked(event: SessionEvent): void {
    const { sessionId } = this;
    applyCheckedLogEvent({
      event,
      projection: this.#projection,
      tracker: this.#tracker,
      sessionId,
    });
    this.#progress.observe(event);
    this.#ledger.apply(event);
    if (event.type === 'run-started') this.#runs += 1;
  }

  /**
   * Applies an event between a resumed marker's `throughSeq` and the marker: the tracker is
   * rebuilt from the marker's whole history when the marker is applied, which checks it then.
   */
  #applyBeforeMarker(event: SessionEvent): void {
    this.#projection.apply(event);
    this.#progress.observe(event);
    this.#ledger.apply(event);
    if (event.type === 'run-started') this.#runs += 1;
  }

  /** Reads what other writers appended since our last seq, checked like a fresh open. */
  async #catchUp(): Promise<void> {
    for await (const event of this.store.read(this.sessionId, { fromSeq: this.lastSeq + 1 })) {
      this.#applyChecked(event);
    }
  }

  async #recoverInterruptedRun(runId: string): Promise<void> {
    const openCallMessage =
      'The run was interrupted (the process stopped) before this tool call was answered.';
    const finished = interruptedRunFinished(runId);
    await this.#write(
      closingEvents({ runId, openCalls: this.pendingToolCalls, openCallMessage, finished }),
    );
  }

  beginRun(runId: string): void {
    this.#activeRunId = runId;
  }

  /**
   * Takes up a run the log shows unfinished, so this loop appends to it and closes it. Returns
   * false when the log's unfinished run is another one (or none): nothing to resume.
   */
  resumeRun(runId: string): boolean {
    const unfinished = this.#progress.unfinishedRun;
    if (unfinished?.runId !== runId) return false;
    this.#resumed = unfinished;
    this.#activeRunId = runId;
    this.#logRun(runId);
    return true;
  }

  #logRun(runId: string): void {
    this.#loggedRuns ??= new Set();
    this.#loggedRuns.add(runId);
  }

  /**
   * Appends events for the active run. Returns false (and writes nothing) when the run is no
   * longer active, for example because it was aborted while this work was in flight.
   */
  async appendForRun(runId: string, events: readonly NewSessionEvent[]): Promise<boolean> {
    return this.#enqueue(async () => {
      if (this.#activeRunId !== runId) return false;
      await this.#appendNow(events);
      return true;
    });
  }

  /**
   * Appends events that belong to no run (a plan the host pinned, a compaction it asked for
   * while idle). Returns false (and writes nothing) while a run is active.
   */
  async appendBetweenRuns(events: readonly NewSessionEvent[]): Promise<boolean> {
    return this.#enqueue(async () => {
      if (this.#activeRunId !== null) return false;
      await this.#appendNow(events);
      return true;
    });
  }

  /**
   * Throws unless the effective history can be sent to a model as it is: every tool call
   * answered. Appends are checked as they happen, so this is O(1).
   */
  assertReadyForModel(): void {
    const pending = this.#tracker.pendingCalls;
    if (pending.length > 0) {
      throw new ProtocolError({
        problems: [
          {
            index: this.items.length,
            kind: 'unanswered_call',
            message: `tool calls ${pending.map((call) => call.id).join(', ')} have no result yet`,
          },
        ],
      });
    }
  }

  /**
   * Ends the run: answers its open tool calls with synthetic error results that say why (so
   * the transcript stays valid whether the run completed, failed or was aborted) and writes
   * `run-finished`.
   */
  async finishRun(
    runId: string,
    finished: NewSessionEvent,
    openCallMessage: string,
  ): Promise<void> {
    if (this.#activeRunId === runId) this.#activeRunId = null;
    // Decided in the write queue, after any in-flight write of this run: a run whose
    // `run-started` was never written (refused input, or aborted before its first write) writes
    // nothing now, and one whose first write landed is always closed.
    await this.#enqueue(async () => {
      if (this.#loggedRuns?.delete(runId) !== true) return;
      if (this.#loggedRuns.size === 0) this.#loggedRuns = undefined;
      this.#unclosedRun = { runId, finished, openCallMessage };
    });
    await this.closeUnclosedRun();
  }

  /**
   * Writes the closing events of a run whose `run-finished` could not be written (the store
   * failed). Called again before the next run starts, so the session heals without a reopen.
   */
  async closeUnclosedRun(): Promise<void> {
    await this.#enqueue(async () => {
      const unclosed = this.#unclosedRun;
      if (unclosed === undefined) return;
      await this.#appendNow(closingEvents({ ...unclosed, openCalls: this.pendingToolCalls }));
      this.#unclosedRun = undefined;
    });
  }

  /** Tokens of the effective history, updated incrementally from the cached per-item counts. */
  estimateTokens(counter: TokenCounter): number {
    const items = this.#projection.items;
    if (this.#countedEpoch !== this.#projection.replacements || this.#countedItems > items.length) {
      this.#tokenTotal = counter.count(items);
      this.#countedItems = items.length;
      this.#countedEpoch = this.#projection.replacements;
      return this.#tokenTotal;
    }
    if (this.#countedItems < items.length) {
      this.#tokenTotal += counter.count(items.slice(this.#countedItems));
      this.#countedItems = items.length;
    }
    return this.#tokenTotal;
  }

  /** Refuses appends that would break the tool-call protocol before anything is written. */
  #checkProtocol(events: readonly NewSessionEvent[]): void {
    const appended = events.flatMap((event) =>
      event.type === 'items-appended' ? event.items : [],
    );
    if (appended.length === 0) return;
    // A malformed item must never reach the log: it would poison every later run.
    const malformed = appended.flatMap((item, offset) =>
      checkItem(item, this.items.length + offset),
    );
    if (malformed.length > 0) throw new ProtocolError({ problems: malformed });
    const problem = this.#tracker.check(appended, this.items.length);
    if (problem !== null) throw new ProtocolError({ problems: [problem] });
  }

  #write(events: readonly NewSessionEvent[]): Promise<void> {
    return this.#enqueue(() => this.#appendNow(events));
  }

  #enqueue<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#writes.then(work, work);
    this.#writes = next.catch(() => undefined);
    return next;
  }

  async #appendNow(offered: readonly NewSessionEvent[]): Promise<void> {
    // The one door into the log: lone surrogates in user, tool or model text become U+FFFD
    // here, so nothing logged (and so nothing sent later) is invalid Unicode.
    const events = wellFormedValue(offered);
    this.#checkProtocol(events);
    let written: readonly SessionEvent[];
    try {
      written = await this.#storeAppend(events);
    } catch (error) {
      if (!ConcurrencyError.isInstance(error)) throw error;
      // Another writer (a second loop on this session) appended first: catch up and try once
      // more. A replacement was built from the history we had, so it is not retried blindly.
      await this.#catchUp();
      if (events.some((event) => event.type === 'transcript-replaced')) throw error;
      this.#checkProtocol(events);
      written = await this.#storeAppend(events);
    }
    this.#applyWritten(written);
  }

  async #storeAppend(events: readonly NewSessionEvent[]): Promise<readonly SessionEvent[]> {
    try {
      return await this.store.append(this.sessionId, events, {
        expectedSeq: this.#projection.lastSeq,
      });
    } catch (error) {
      // Only our own errors pass as they are: a raw fs error (ENOSPC) has a `code` too.
      if (LoopkeeperError.isInstance(error)) throw error;
      const detail = describeThrownText(error);
      throw new StoreError(`Appending to session ${this.sessionId} failed: ${detail}`, {
        cause: error,
      });
    }
  }

  /** Applies events this session wrote; they were checked before the append. */
  #applyWritten(written: readonly SessionEvent[]): void {
    const epochBefore = this.#projection.replacements;
    for (const event of written) {
      this.#projection.apply(event);
      this.#progress.observe(event);
      if (event.type === 'run-started') {
        this.#runs += 1;
        this.#logRun(event.runId);
      }
      if (event.type === 'items-appended') {
        // The log's copies of items checked before the append: the token counter and later
        // checks need not run the schema over them again.
        for (const item of event.items) rememberCheckedItem(item);
        this.#tracker.observe(event.items);
        this.#ledger.append(event.items);
      }
    }
    if (this.#projection.replacements !== epochBefore) this.#tracker.reset(this.#projection.items);
  }
}
