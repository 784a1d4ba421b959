import type { OutputStream } from './style.js';

export interface ProgressLine {
  /** Shows `text` for `step`: rewritten in place on a terminal, printed every few steps otherwise. */
  update(step: number, text: string): void;
  /** Shows the last state and ends the line. */
  finish(step: number, text: string): void;
}

/**
 * Live progress on one line. On a terminal the line is rewritten with a carriage return (no
 * escape codes, so NO_COLOR terminals stay clean); piped output gets a plain line every
 * `everySteps` steps instead, so logs stay readable.
 */
export function createProgressLine({
  stream,
  everySteps = 25,
}: {
  stream: OutputStream;
  everySteps?: number;
}): ProgressLine {
  const terminal = stream.isTTY === true;
  let shownLength = 0;
  let lastPrintedStep: number | undefined;

  function rewrite(text: string): void {
    // Wider than the terminal would wrap, and a carriage return only goes back one row.
    // A pseudo-terminal may report 0 columns: treat that as unknown.
    const width = Math.max(20, (stream.columns || 120) - 1);
    const line = text.length > width ? `${text.slice(0, width - 1)}…` : text;
    stream.write(`\r${line.padEnd(shownLength)}`);
    shownLength = line.length;
  }

  return {
    update(step, text) {
      if (terminal) {
        rewrite(text);
      } else if (lastPrintedStep === undefined || step - lastPrintedStep >= everySteps) {
        stream.write(`${text}\n`);
        lastPrintedStep = step;
      }
    },
    finish(step, text) {
      if (terminal) {
        rewrite(text);
        stream.write('\n');
      } else if (step !== lastPrintedStep) {
        stream.write(`${text}\n`);
      }
    },
  };
}
