/**
 * The `loopkeeper/log` entry: the session's append-only event log, its projection (the
 * effective history the model sees) and the stores that persist it.
 */

export { effectiveHistory } from './effective-history.js';
export {
  type CompactionReason,
  type CompactionTier,
  type ItemsAppendedEvent,
  type NewSessionEvent,
  type RunFinishedEvent,
  type RunOutcome,
  type RunStartedEvent,
  SESSION_EVENT_TYPES,
  SESSION_SCHEMA_VERSION,
  type SessionEvent,
  type SessionEventType,
  type TranscriptReplacedEvent,
  type UsageReportedEvent,
  type ViewEntry,
} from './events.js';
export {
  FileSessionStore,
  type FileSessionStoreOptions,
  type TornLineRecovery,
} from './file-store.js';
export { loadProjection } from './load-projection.js';
export { MemorySessionStore, type MemorySessionStoreOptions } from './memory-store.js';
export { createProjection, type ReportedUsage, SessionProjection } from './projection.js';
export { buildReplacementView } from './replacement-view.js';
export { type ResumePoint, resumeProjection } from './resume-projection.js';
export { assertValidSessionId, isValidSessionId, MAX_SESSION_ID_LENGTH } from './session-id.js';
export {
  type AppendOptions,
  type IndexedSessionStore,
  isIndexedSessionStore,
  type ReadOptions,
  type SessionStore,
} from './store.js';
