import { createProjection, type SessionProjection } from './projection.js';
import { resumeProjection } from './resume-projection.js';
import { isIndexedSessionStore, type SessionStore } from './store.js';

/**
 * Brings `projection` up to date with the session's log, reading only the events after its
 * `lastSeq`: how a loop resumes a session from the log alone, or catches up after another
 * writer appended. Without `projection`, on an `IndexedSessionStore`, it starts from the
 * session's latest compaction marker (`resumeProjection`) instead of seq 1.
 *
 * @example
 * ```ts
 * import { loadProjection, MemorySessionStore } from 'loopkeeper/log';
 *
 * const store = new MemorySessionStore();
 * const projection = await loadProjection({ store, sessionId: 'support-42' });
 * console.log(projection.lastSeq, projection.items.length, projection.replacements);
 * ```
 */
export async function loadProjection({
  store,
  sessionId,
  projection,
}: {
  readonly store: SessionStore;
  readonly sessionId: string;
  readonly projection?: SessionProjection;
}): Promise<SessionProjection> {
  // Without a projection to continue, an indexed store starts from the latest marker.
  const target =
    projection ??
    (isIndexedSessionStore(store)
      ? (await resumeProjection({ store, sessionId })).projection
      : createProjection());
  for await (const event of store.read(sessionId, { fromSeq: target.lastSeq + 1 })) {
    target.apply(event);
  }
  return target;
}
