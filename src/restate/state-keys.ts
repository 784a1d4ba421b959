/** The Virtual Object's state keys, in one place so the handlers and the store agree. */
export const stateKeys = {
  /** The log's head: `SessionHead`. Sessions written before it have only `lastSeq`. */
  head: 'head',
  /** The last seq, as the first layout kept it (read once, then replaced by `head`). */
  lastSeq: 'lastSeq',
  event: (seq: number) => `event:${seq}`,
  /** Seqs of the events of one indexed type, `INDEX_CHUNK` per key, in order. */
  index: (type: string, chunk: number) => `index:${type}:${chunk}`,
  /** The seq of the event that holds an item (an append, or a marker's inline item). */
  item: (id: string) => `item:${id}`,
  telemetryCount: 'telemetryCount',
  telemetry: (seq: number) => `telemetry:${seq}`,
  run: (runId: string) => `run:${runId}`,
  /** The digest of the content a run was sent with, so a second send of its id is checked. */
  runInput: (runId: string) => `runInput:${runId}`,
  lastRunId: 'lastRunId',
  activeInvocation: 'activeInvocation',
} as const;
