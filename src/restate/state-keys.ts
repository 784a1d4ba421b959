/** The Virtual Object's state keys, in one place so the handlers and the store agree. */
export const stateKeys = {
  lastSeq: 'lastSeq',
  event: (seq: number) => `event:${seq}`,
  telemetryCount: 'telemetryCount',
  telemetry: (seq: number) => `telemetry:${seq}`,
  run: (runId: string) => `run:${runId}`,
  lastRunId: 'lastRunId',
  activeInvocation: 'activeInvocation',
} as const;
