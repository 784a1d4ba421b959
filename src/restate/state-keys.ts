/** The Virtual Object's state keys, in one place so the handlers and the store agree. */
export const stateKeys = {
  /** The log's head: `SessionHead`. Sessions written before it have only `lastSeq`. */
  head: 'head',
  /** The last seq, as the first layout kept it (read once, then replaced by `head`). */
  lastSeq: 'lastSeq',
  event: (seq: number) => `event:${seq}`,
  telemetryCount: 'telemetryCount',
  telemetry: (seq: number) => `telemetry:${seq}`,
  run: (runId: string) => `run:${runId}`,
  /** The digest of the content a run was sent with, so a second send of its id is checked. */
  runInput: (runId: string) => `runInput:${runId}`,
  lastRunId: 'lastRunId',
  activeInvocation: 'activeInvocation',
} as const;
