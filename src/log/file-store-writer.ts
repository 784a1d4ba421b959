/** The file store's writer: what it holds per session, its durable writes and reads. */
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { StoreError } from '../errors/index.js';
import { ioError } from './io-error.js';
import { type IdentifiedLogScan, identityOf, readLogFile, sameFile } from './read-log-file.js';
import type { LogPosition } from './session-log-parser.js';

/** What this store holds for a session it writes. */
export interface SessionWriter {
  readonly handle: FileHandle;
  readonly path: string;
  readonly lockPath: string;
  lastSeq: number;
  /** Bytes of complete events in the file: where a failed write is cut back to. */
  size: number;
  /** Set when a failed write could not be undone; the session needs reopening. */
  broken: StoreError | undefined;
  /**
   * Where recent batches begin (the seq before each and its byte offset), oldest first: a read
   * from a seq at or after the first one starts there instead of reading the whole file. The
   * lines before were checked when the log was opened or written by this writer, under the lock.
   */
  readonly batchStarts: LogPosition[];
}

/** Batch starts a writer keeps: enough for reads of the latest runs (`runTurn`, catch-ups). */
const KEPT_BATCH_STARTS = 64;

export function keepBatchStart(writer: SessionWriter, start: LogPosition): void {
  writer.batchStarts.push(start);
  if (writer.batchStarts.length > KEPT_BATCH_STARTS) writer.batchStarts.shift();
}

/** The latest batch start at or before `fromSeq`, when this store writes the session. */
export function startOfRead(
  writer: SessionWriter | undefined,
  fromSeq: number,
): LogPosition | undefined {
  if (writer === undefined) return undefined;
  let start: LogPosition | undefined;
  for (const candidate of writer.batchStarts) {
    if (candidate.seq < fromSeq) start = candidate;
    else break;
  }
  return start;
}

/**
 * The scan of an earlier whole-file read, when the file (now held under the lock) is still the
 * one it read: same inode, size and times, so every line it checked is there unchanged.
 */
export async function reusableScan({
  earlier,
  handle,
}: {
  readonly earlier: IdentifiedLogScan | undefined;
  readonly handle: FileHandle;
}): Promise<IdentifiedLogScan | undefined> {
  if (earlier?.file === undefined) return undefined;
  const now = await identityOf(handle);
  return now !== undefined && sameFile(earlier.file, now) ? earlier : undefined;
}

export async function scanLog(path: string): Promise<IdentifiedLogScan> {
  const events = readLogFile({ path });
  for (;;) {
    const next = await events.next();
    if (next.done === true) return next.value;
  }
}

/**
 * One write for the whole batch, then fsync. If either fails, the file is cut back to its last
 * complete event, so a later batch can never follow half of this one.
 */
export async function writeDurably({
  writer,
  bytes,
}: {
  readonly writer: SessionWriter;
  readonly bytes: Buffer;
}): Promise<void> {
  try {
    let written = 0;
    // A regular file takes the whole buffer in one write; the loop only covers a short write.
    while (written < bytes.length) {
      const result = await writer.handle.write(bytes, written, bytes.length - written);
      written += result.bytesWritten;
    }
    await writer.handle.sync();
  } catch (cause) {
    try {
      await writer.handle.truncate(writer.size);
      await writer.handle.sync();
    } catch (undoCause) {
      writer.broken = new StoreError(
        `Session log ${writer.path} may end in a partial batch; reopen the store to recover it`,
        { code: 'writer_broken', cause: undoCause },
      );
    }
    throw ioError({ action: 'append to session log', path: writer.path, cause });
  }
}

/** Makes a new log file's directory entry durable, not only its contents. */
export async function syncDirectory(directory: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(directory, 'r');
    await handle.sync();
  } catch {
    // Some platforms cannot fsync a directory; the file's own fsync still holds its data.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
