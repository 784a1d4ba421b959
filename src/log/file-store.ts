import { type FileHandle, mkdir, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConcurrencyError, ConfigError, LoopkeeperError, StoreError } from '../errors/index.js';
import type { NewSessionEvent, SessionEvent } from './events.js';
import {
  keepBatchStart,
  reusableScan,
  type SessionWriter,
  scanLog,
  startOfRead,
  syncDirectory,
  writeDurably,
} from './file-store-writer.js';
import { errorCode, ioError } from './io-error.js';
import { openWithoutFollowing } from './open-without-following.js';
import { type IdentifiedLogScan, readLogFile } from './read-log-file.js';
import { SerialQueue } from './serial-queue.js';
import { assertValidSessionId, isValidSessionId } from './session-id.js';
import { acquireSessionLock, releaseSessionLock } from './session-lock.js';
import { stampEvents } from './stamp-events.js';
import type { AppendOptions, ReadOptions, SessionStore } from './store.js';
import { assertSeqArgument } from './store-arguments.js';

const LOG_EXTENSION = '.jsonl';

/** A torn last line cut away when a session was opened for writing. */
export interface TornLineRecovery {
  readonly sessionId: string;
  readonly path: string;
  readonly lineNumber: number;
  readonly bytes: number;
}

export interface FileSessionStoreOptions {
  /** Holds one `<sessionId>.jsonl` log and, while written, one `<sessionId>.lock` per session. */
  readonly directory: string;
  /** Clock for the `at` stamp; tests pass a fixed one. */
  readonly now?: () => Date;
  /** Told when opening a session cut away a torn last line (a crash mid-write). */
  readonly onRecovery?: (recovery: TornLineRecovery) => void;
}

/**
 * The embedded `SessionStore`: one JSONL file per session in a directory, one event per line.
 *
 * - Each append batch is one write followed by fsync; an append resolves once it is durable.
 * - A session is opened for writing on its first append (or `openSession`): that takes the
 *   single-writer lock (see `acquireSessionLock`), checks every line, and cuts away a torn last
 *   line. After that the last seq is kept in memory, so appends never reread the file. When this
 *   store has just read the whole log (a loop resuming the session) and the file is unchanged
 *   since, the writer takes that read's checks instead of reading the file again.
 * - A log or lock file that is a symbolic link is refused (`symlink_refused`), never followed.
 * - Reading takes no lock, so another store or process may read a session while it is written;
 *   a last line still being written is not yet an event and is not returned.
 * - Appends to one session through this store run one at a time, in call order.
 *
 * @example
 * ```ts
 * import { join } from 'node:path';
 * import { tmpdir } from 'node:os';
 * import { createAgentLoop, FileSessionStore } from 'loopkeeper';
 * import { ScriptedModel } from 'loopkeeper/testing';
 *
 * const store = new FileSessionStore({ directory: join(tmpdir(), 'loopkeeper-sessions') });
 * // A loop on an existing session id resumes it from the log.
 * const loop = createAgentLoop({
 *   model: new ScriptedModel({ turns: [] }),
 *   store,
 *   sessionId: 'support-42',
 * });
 * ```
 */
export class FileSessionStore implements SessionStore {
  readonly directory: string;
  readonly #now: () => Date;
  readonly #onRecovery: ((recovery: TornLineRecovery) => void) | undefined;
  readonly #writers = new Map<string, SessionWriter>();
  /** The last whole-file read of sessions not yet opened for writing, for the writer to reuse. */
  readonly #scans = new Map<string, IdentifiedLogScan>();
  readonly #queue = new SerialQueue();
  #directoryReady = false;
  #closed = false;

  constructor({ directory, now = () => new Date(), onRecovery }: FileSessionStoreOptions) {
    if (typeof directory !== 'string' || directory.length === 0) {
      throw new ConfigError('FileSessionStore needs a directory path', {
        code: 'config_invalid_option',
      });
    }
    this.directory = resolve(directory);
    this.#now = now;
    this.#onRecovery = onRecovery;
  }

  async append(
    sessionId: string,
    events: readonly NewSessionEvent[],
    options: AppendOptions = {},
  ): Promise<readonly SessionEvent[]> {
    this.#assertOpen();
    assertValidSessionId(sessionId);
    const { expectedSeq } = options;
    assertSeqArgument('expectedSeq', expectedSeq);
    return this.#queue.run(sessionId, async () => {
      const writer = await this.#writerFor(sessionId);
      if (writer.broken !== undefined) throw writer.broken;
      if (expectedSeq !== undefined && expectedSeq !== writer.lastSeq) {
        throw new ConcurrencyError(
          `Session ${sessionId} is at seq ${writer.lastSeq}, not the expected ${expectedSeq}; nothing was written`,
        );
      }
      const batch = stampEvents({ events, lastSeq: writer.lastSeq, now: this.#now() });
      if (batch.events.length === 0) return batch.events;
      const bytes = Buffer.from(batch.text, 'utf8');
      await writeDurably({ writer, bytes });
      keepBatchStart(writer, { seq: writer.lastSeq, offset: writer.size });
      writer.lastSeq += batch.events.length;
      writer.size += bytes.length;
      return batch.events;
    });
  }

  /**
   * Opens a session for writing now instead of on its first append: takes the lock, recovers a
   * torn last line, and tells the last seq. Fails like `append` would (locked, corrupt).
   */
  async openSession(sessionId: string): Promise<{ readonly lastSeq: number }> {
    this.#assertOpen();
    assertValidSessionId(sessionId);
    return this.#queue.run(sessionId, async () => {
      const writer = await this.#writerFor(sessionId);
      return { lastSeq: writer.lastSeq };
    });
  }

  read(sessionId: string, options: ReadOptions = {}): AsyncIterable<SessionEvent> {
    this.#assertOpen();
    assertValidSessionId(sessionId);
    assertSeqArgument('fromSeq', options.fromSeq);
    const fromSeq = options.fromSeq ?? 0;
    const path = this.#logPath(sessionId);
    const scans = this.#scans;
    const writers = this.#writers;
    const start = startOfRead(writers.get(sessionId), fromSeq);
    return (async function* () {
      const events = readLogFile({ path, ...(start === undefined ? {} : { start }) });
      try {
        for (;;) {
          const next = await events.next();
          if (next.done === true) {
            if (!writers.has(sessionId) && next.value.file !== undefined) {
              scans.set(sessionId, next.value);
            }
            return;
          }
          if (next.value.seq >= fromSeq) yield next.value;
        }
      } finally {
        // A reader that stops early (`break`, a throw in its loop) ends this generator at the
        // `yield`; the file's own generator must be told too, or its handle stays open.
        await events.return({ lastSeq: 0, validLength: 0 });
      }
    })();
  }

  async list(): Promise<readonly string[]> {
    this.#assertOpen();
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch (cause) {
      if (errorCode(cause) === 'ENOENT') return [];
      throw ioError({ action: 'list session directory', path: this.directory, cause });
    }
    return names
      .filter((name) => name.endsWith(LOG_EXTENSION))
      .map((name) => name.slice(0, -LOG_EXTENSION.length))
      .filter((sessionId) => isValidSessionId(sessionId))
      .sort();
  }

  /** Waits for pending appends, then closes every log file and releases every lock. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#queue.idle();
    const failures: unknown[] = [];
    for (const writer of this.#writers.values()) {
      await writer.handle.close().catch((error: unknown) => failures.push(error));
      await releaseSessionLock({ path: writer.lockPath }).catch((error: unknown) =>
        failures.push(error),
      );
    }
    this.#writers.clear();
    this.#scans.clear();
    if (failures.length > 0) {
      throw new StoreError(`Closing the session store left ${failures.length} problem(s)`, {
        code: 'io',
        cause: failures[0],
      });
    }
  }

  #logPath(sessionId: string): string {
    return join(this.directory, `${sessionId}${LOG_EXTENSION}`);
  }

  async #writerFor(sessionId: string): Promise<SessionWriter> {
    const existing = this.#writers.get(sessionId);
    if (existing !== undefined) return existing;
    await this.#ensureDirectory();
    const path = this.#logPath(sessionId);
    const lockPath = join(this.directory, `${sessionId}.lock`);
    await acquireSessionLock({ path: lockPath, sessionId });
    try {
      const writer = await this.#openLog({ sessionId, path, lockPath });
      this.#writers.set(sessionId, writer);
      return writer;
    } catch (error) {
      await releaseSessionLock({ path: lockPath }).catch(() => undefined);
      throw error;
    }
  }

  async #openLog({
    sessionId,
    path,
    lockPath,
  }: {
    readonly sessionId: string;
    readonly path: string;
    readonly lockPath: string;
  }): Promise<SessionWriter> {
    const earlier = this.#scans.get(sessionId);
    this.#scans.delete(sessionId);
    let handle: FileHandle;
    try {
      handle = await openWithoutFollowing({ path, mode: 'append' });
    } catch (cause) {
      if (LoopkeeperError.isInstance(cause)) throw cause;
      throw ioError({ action: 'open session log for appending', path, cause });
    }
    let scan: IdentifiedLogScan;
    try {
      scan = (await reusableScan({ earlier, handle })) ?? (await scanLog(path));
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
    try {
      if (scan.torn !== undefined) {
        await handle.truncate(scan.validLength);
        await handle.sync();
        this.#onRecovery?.({ sessionId, path, ...scan.torn });
      }
      if (scan.lastSeq === 0) await syncDirectory(this.directory);
    } catch (cause) {
      await handle.close().catch(() => undefined);
      throw LoopkeeperError.isInstance(cause)
        ? cause
        : ioError({ action: 'recover torn last line of', path, cause });
    }
    return {
      handle,
      path,
      lockPath,
      lastSeq: scan.lastSeq,
      size: scan.validLength,
      broken: undefined,
      batchStarts: [{ seq: scan.lastSeq, offset: scan.validLength }],
    };
  }

  async #ensureDirectory(): Promise<void> {
    if (this.#directoryReady) return;
    try {
      await mkdir(this.directory, { recursive: true });
    } catch (cause) {
      throw ioError({ action: 'create session directory', path: this.directory, cause });
    }
    this.#directoryReady = true;
  }

  #assertOpen(): void {
    if (this.#closed) {
      throw new StoreError('The session store is closed', { code: 'store_closed' });
    }
  }
}
