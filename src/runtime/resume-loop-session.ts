import type { SessionProjection } from '../log/projection.js';
import { resumeProjection } from '../log/resume-projection.js';
import type { IndexedSessionStore } from '../log/store.js';

/** Where a loop session opens from when its store is indexed and the log has a marker. */
export interface LoopSessionResume {
  readonly projection: SessionProjection;
  /** Read the log from here on. */
  readonly fromSeq: number;
  /** Events before this seq are applied unchecked: the marker's history is checked whole. */
  readonly markerSeq: number;
  /** `run-started` events before `fromSeq`. */
  readonly runs: number;
  /** The run started before `fromSeq` and not finished before it, if any. */
  readonly openRun: string | null;
  /** The seq of that run's `run-started`, so its durable-run facts can be read too. */
  readonly openRunSeq: number | null;
}

/**
 * The facts a loop session rebuilds on open (projection, run count, an unfinished run), from
 * the session's latest compaction marker instead of seq 1; undefined for a session without a
 * marker, which is read whole.
 */
export async function resumeLoopSession({
  store,
  sessionId,
}: {
  readonly store: IndexedSessionStore;
  readonly sessionId: string;
}): Promise<LoopSessionResume | undefined> {
  const point = await resumeProjection({ store, sessionId });
  if (point.markerSeq === 0) return undefined;
  const beforeSeq = point.fromSeq;
  const [runs, started, finished] = await Promise.all([
    store.countEvents(sessionId, { type: 'run-started', beforeSeq }),
    store.readLatest(sessionId, { type: 'run-started', beforeSeq }),
    store.readLatest(sessionId, { type: 'run-finished', beforeSeq }),
  ]);
  const open =
    started?.type === 'run-started' && (finished === undefined || finished.seq < started.seq);
  return {
    ...point,
    runs,
    openRun: open ? started.runId : null,
    openRunSeq: open ? started.seq : null,
  };
}
