import { createProjection, type SessionProjection } from './projection.js';
import type { SessionStore } from './store.js';

/**
 * Brings `projection` up to date with the session's log, reading only the events after its
 * `lastSeq`: how a loop resumes a session from the log alone, or catches up after another
 * writer appended.
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
  projection = createProjection(),
}: {
  readonly store: SessionStore;
  readonly sessionId: string;
  readonly projection?: SessionProjection;
}): Promise<SessionProjection> {
  for await (const event of store.read(sessionId, { fromSeq: projection.lastSeq + 1 })) {
    projection.apply(event);
  }
  return projection;
}
