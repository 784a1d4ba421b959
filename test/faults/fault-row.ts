import type { SessionEvent } from 'loopkeeper';
import type { TurnOutcome } from 'loopkeeper/runtime';
import { markdownTable } from './markdown-table.js';

/** One row of the fault matrix, as printed and kept in docs/reliability.md. */
export interface FaultRow {
  readonly fault: string;
  /** Outcome of the run the fault hit. */
  readonly outcome: TurnOutcome;
  /** `code` of the run's typed error, or `-` when it completed. */
  readonly errorCode: string;
  /** What the loop did about it, read from telemetry, the log and the server's request count. */
  readonly handled: string;
  /** `validateTranscript(effectiveHistory(events))` is empty, and equals the live session. */
  readonly logValid: boolean;
  /** The events logged before the fault are an unchanged prefix of the events after it. */
  readonly itemsKept: boolean;
  /** Outcome of one more turn sent after the fault. */
  readonly nextTurn: TurnOutcome;
}

/** The rows as a markdown table, in the order given. */
export function faultMatrixTable(rows: readonly FaultRow[]): string {
  return markdownTable({
    headers: [
      'fault',
      'outcome',
      'error code',
      'handled by',
      'log valid',
      'items kept',
      'next turn',
    ],
    rows: rows.map((row) => [
      row.fault,
      row.outcome,
      row.errorCode,
      row.handled,
      row.logValid ? 'yes' : 'NO',
      row.itemsKept ? 'yes' : 'NO',
      row.nextTurn,
    ]),
  });
}

/** Whether `before` is an unchanged prefix of `after`: nothing logged earlier was lost or rewritten. */
export function keepsPrefix(
  before: readonly SessionEvent[],
  after: readonly SessionEvent[],
): boolean {
  if (after.length < before.length) return false;
  return before.every((event, index) => JSON.stringify(event) === JSON.stringify(after[index]));
}
