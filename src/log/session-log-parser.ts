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

  constructor({ path }: { readonly path: string }) {
    this.#path = path;
  }

  /** One complete line (its bytes without the newline) as its event. */
  pushLine(line: Uint8Array): SessionEvent {
    this.#lineNumber += 1;
    const event = parseStoredLine({
      line,
      path: this.#path,
      lineNumber: this.#lineNumber,
      expectedSeq: this.#lastSeq + 1,
    });
    this.#lastSeq = event.seq;
    this.#validLength += line.byteLength + 1;
    return freezeDeep(event);
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
