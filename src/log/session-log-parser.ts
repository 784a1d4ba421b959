import { StoreError } from '../errors/index.js';
import type { SessionEvent } from './events.js';
import { freezeDeep } from './freeze-deep.js';
import { checkSeal } from './line-checksum.js';
import { parseStoredLine } from './stored-line.js';

/** The outcome of reading a whole session log file. */
export interface SessionLogScan {
  readonly lastSeq: number;
  /** Bytes up to and including the newline of the last complete event. */
  readonly validLength: number;
  /** The torn last line a crash left behind, if any: not an event, safe to cut at `validLength`. */
  readonly torn?: { readonly lineNumber: number; readonly bytes: number };
}

/** A line boundary of a log: the seq of the event before it, and the bytes up to it. */
export interface LogPosition {
  readonly seq: number;
  readonly offset: number;
}

/**
 * Reads a session log line by line. Every newline-terminated line must be a complete, intact
 * event (see `parseStoredLine`): each batch is written with one write, so a crash can only leave
 * a prefix of it, and a torn write ends without its newline. Only the bytes after the last
 * newline can be torn; they are not an event and are ignored (cut by a writer on open). Data is
 * never skipped: any other problem throws `StoreError` with the line number.
 */
export class SessionLogParser {
  readonly #path: string;
  #lineNumber = 0;
  #lastSeq = 0;
  #validLength = 0;

  /** `start`: where reading begins, when not at the top: the seq of the line before it and its byte offset. */
  constructor({ path, start }: { readonly path: string; readonly start?: LogPosition }) {
    this.#path = path;
    if (start !== undefined) {
      // Every line is one event and seqs have no gaps, so the line before seq N + 1 is line N.
      this.#lineNumber = start.seq;
      this.#lastSeq = start.seq;
      this.#validLength = start.offset;
    }
  }

  /** One complete line (its bytes without the newline) as its event. */
  pushLine(line: Uint8Array): SessionEvent {
    this.#lineNumber += 1;
    const event = parseStoredLine({
      line,
      where: `Session log ${this.#path}, line ${this.#lineNumber}`,
      expectedSeq: this.#lastSeq + 1,
    });
    try {
      freezeDeep(event);
    } catch (cause) {
      throw new StoreError(
        `Session log ${this.#path}, line ${this.#lineNumber}: ${cause instanceof Error ? cause.message : String(cause)}`,
        { code: 'corrupt_log', cause },
      );
    }
    this.#lastSeq = event.seq;
    this.#validLength += line.byteLength + 1;
    return event;
  }

  /** The end of the file, with the bytes after its last newline. */
  finish({ remainder }: { readonly remainder: Uint8Array }): SessionLogScan {
    const scan = { lastSeq: this.#lastSeq, validLength: this.#validLength };
    if (remainder.byteLength === 0) return scan;
    // A torn write is a prefix of `line\n`; an intact sealed line followed by one more byte is
    // not: its newline was damaged, and cutting it would drop a complete event.
    if (checkSeal(remainder.subarray(0, remainder.byteLength - 1)) === 'valid') {
      throw new StoreError(
        `Session log ${this.#path}, line ${this.#lineNumber + 1}: the line is intact but the newline after it is damaged`,
        { code: 'corrupt_log' },
      );
    }
    return { ...scan, torn: { lineNumber: this.#lineNumber + 1, bytes: remainder.byteLength } };
  }
}
