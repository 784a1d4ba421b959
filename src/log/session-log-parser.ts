import { StoreError } from '../errors/index.js';
import type { SessionEvent } from './events.js';
import { freezeDeep } from './freeze-deep.js';
import { parseStoredLine, UNPARSABLE } from './stored-line.js';

/** The outcome of reading a whole session log file. */
export interface SessionLogScan {
  readonly lastSeq: number;
  /** Bytes up to and including the newline of the last complete event. */
  readonly validLength: number;
  /** The torn last line a crash left behind, if any: not an event, safe to cut at `validLength`. */
  readonly torn?: { readonly lineNumber: number; readonly bytes: number };
}

/**
 * Reads a session log line by line and decides what each line is. Every line must be a
 * complete event, except the very last one: a crash mid-write can leave it without its newline
 * or unparsable, and then it is torn and ignored. An unparsable line with anything after it is
 * corruption, reported with its line number; data is never skipped.
 */
export class SessionLogParser {
  readonly #path: string;
  #lineNumber = 0;
  #bytes = 0;
  #lastSeq = 0;
  #validLength = 0;
  #unparsableLine: number | undefined;

  constructor({ path }: { readonly path: string }) {
    this.#path = path;
  }

  /** One complete line (its bytes without the newline); its event, or undefined if held back. */
  pushLine(line: Uint8Array): SessionEvent | undefined {
    this.#assertNothingHeldBack();
    this.#lineNumber += 1;
    this.#bytes += line.byteLength + 1;
    const event = parseStoredLine({
      text: Buffer.from(line.buffer, line.byteOffset, line.byteLength).toString('utf8'),
      path: this.#path,
      lineNumber: this.#lineNumber,
      expectedSeq: this.#lastSeq + 1,
    });
    if (event === UNPARSABLE) {
      // Only the last line may be torn: decided when the next line or the end arrives.
      this.#unparsableLine = this.#lineNumber;
      return undefined;
    }
    this.#lastSeq = event.seq;
    this.#validLength = this.#bytes;
    return freezeDeep(event);
  }

  /** The end of the file, with `remainderBytes` after the last newline. */
  finish({ remainderBytes }: { readonly remainderBytes: number }): SessionLogScan {
    const scan = { lastSeq: this.#lastSeq, validLength: this.#validLength };
    if (remainderBytes > 0) {
      this.#assertNothingHeldBack();
      return { ...scan, torn: { lineNumber: this.#lineNumber + 1, bytes: remainderBytes } };
    }
    if (this.#unparsableLine !== undefined) {
      return {
        ...scan,
        torn: { lineNumber: this.#unparsableLine, bytes: this.#bytes - this.#validLength },
      };
    }
    return scan;
  }

  #assertNothingHeldBack(): void {
    if (this.#unparsableLine === undefined) return;
    throw new StoreError(
      `Session log ${this.#path}, line ${this.#unparsableLine}: not valid JSON, and more data follows it, so it is corruption rather than a torn last write`,
      { code: 'corrupt_log' },
    );
  }
}
