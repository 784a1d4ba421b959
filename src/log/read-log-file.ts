import type { FileHandle } from 'node:fs/promises';
import { LoopkeeperError } from '../errors/index.js';
import type { SessionEvent } from './events.js';
import { errorCode, ioError } from './io-error.js';
import { openWithoutFollowing } from './open-without-following.js';
import { type LogPosition, SessionLogParser, type SessionLogScan } from './session-log-parser.js';

/**
 * The file a scan read, as `fstat` described it when the scan reached its end. While a later
 * `fstat` says the same, the file is the one scanned, so a writer may take the scan as it is.
 */
export interface LogFileIdentity {
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
}

/** A whole-file scan, with the identity of the file it read when that file held nothing more. */
export interface IdentifiedLogScan extends SessionLogScan {
  readonly file?: LogFileIdentity;
}

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * Streams the events of a session log file, checking every line, and returns the scan (last
 * seq, valid length, torn last line, and the file's identity) when done. A missing file is an
 * empty session; a symbolic link is refused (`symlink_refused`). Memory stays bounded by the
 * longest line, not the file.
 */
export async function* readLogFile({
  path,
  start = { seq: 0, offset: 0 },
}: {
  readonly path: string;
  /** A line boundary to begin at, known from the store's own writes; the lines before it are not read. */
  readonly start?: LogPosition;
}): AsyncGenerator<SessionEvent, IdentifiedLogScan> {
  let handle: FileHandle;
  try {
    handle = await openWithoutFollowing({ path, mode: 'read' });
  } catch (cause) {
    if (LoopkeeperError.isInstance(cause)) throw cause;
    if (errorCode(cause) === 'ENOENT') return { lastSeq: 0, validLength: 0 };
    throw ioError({ action: 'open session log', path, cause });
  }
  try {
    const parser = new SessionLogParser({ path, start });
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    // Pieces of a line that spans chunks; copied, because `chunk` is reused.
    let partial: Buffer[] = [];
    let consumed = start.offset;
    for (;;) {
      const { bytesRead } = await readChunk({ handle, chunk, path, position: consumed });
      if (bytesRead === 0) break;
      consumed += bytesRead;
      const data = chunk.subarray(0, bytesRead);
      let start = 0;
      for (let newline = data.indexOf(NEWLINE); newline !== -1; ) {
        const piece = data.subarray(start, newline);
        const line = partial.length === 0 ? piece : Buffer.concat([...partial, piece]);
        partial = [];
        yield parser.pushLine(line);
        start = newline + 1;
        newline = data.indexOf(NEWLINE, start);
      }
      if (start < data.length) {
        partial.push(Buffer.from(data.subarray(start)));
      }
    }
    const scan = parser.finish({ remainder: Buffer.concat(partial) });
    const file = await identityOf(handle);
    // Grown since the last read (another writer appended): the scan no longer describes it.
    return file === undefined || file.size !== consumed ? scan : { ...scan, file };
  } finally {
    await handle.close();
  }
}

async function readChunk({
  handle,
  chunk,
  path,
  position,
}: {
  readonly handle: FileHandle;
  readonly chunk: Buffer;
  readonly path: string;
  readonly position: number;
}): Promise<{ bytesRead: number }> {
  try {
    return await handle.read(chunk, 0, chunk.length, position);
  } catch (cause) {
    throw LoopkeeperError.isInstance(cause)
      ? cause
      : ioError({ action: 'read session log', path, cause });
  }
}

/** The open file's identity; undefined when `fstat` fails, which only costs a rescan. */
export async function identityOf(handle: FileHandle): Promise<LogFileIdentity | undefined> {
  try {
    const { dev, ino, size, mtimeMs, ctimeMs } = await handle.stat();
    return { dev, ino, size, mtimeMs, ctimeMs };
  } catch {
    return undefined;
  }
}

export function sameFile(left: LogFileIdentity, right: LogFileIdentity): boolean {
  return (
    left.dev === right.dev &&
    left.ino === right.ino &&
    left.size === right.size &&
    left.mtimeMs === right.mtimeMs &&
    left.ctimeMs === right.ctimeMs
  );
}
