import type { Item, TelemetryEvent } from 'loopkeeper';
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

/** What the loop visibly did about the fault: attempts, compactions, error results. */
export function describeHandling({
  telemetry,
  requests,
  appended,
}: {
  readonly telemetry: readonly TelemetryEvent[];
  readonly requests: number;
  readonly appended: readonly Item[];
}): string {
  const parts = [`${requests} HTTP request${requests === 1 ? '' : 's'}`];
  for (const event of telemetry) {
    if (event.type === 'CompactionStarted') parts.push(`compaction (${event.reason})`);
    if (event.type === 'CompactionFinished') parts.push(`${event.tier} tier`);
    if (event.type === 'CompactionFailed') parts.push(`summary refused: ${event.error.code}`);
    if (event.type === 'EmergencyPruneApplied') {
      parts.push(`emergency prune (${event.fits ? 'fits' : 'does not fit'})`);
    }
  }
  const errorResults = appended.filter((item) => item.kind === 'toolResult' && item.isError);
  // The loop's own answers to calls a run left open (aborted, failed, interrupted).
  const synthetic = errorResults.filter(
    (item) => item.kind === 'toolResult' && item.content.startsWith('[loopkeeper]'),
  );
  if (synthetic.length > 0) {
    parts.push(`${synthetic.length} synthetic result(s) for open calls`);
  }
  if (errorResults.length > synthetic.length) {
    parts.push(`${errorResults.length - synthetic.length} isError tool result(s)`);
  }
  return parts.join(', ');
}
