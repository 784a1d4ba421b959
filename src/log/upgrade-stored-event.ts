import type { SessionEvent } from './events.js';

/** The first schema version that spells every string value in snake_case. */
const FIRST_SNAKE_CASE_VERSION = 3;

/** Values older versions spelled in kebab-case, by field, with their current spelling. */
const RENAMED: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'transcript-replaced': { 'payload-too-large': 'payload_too_large' },
  'run-finished': { 'step-limit': 'step_limit' },
};
const FIELD: Readonly<Record<string, 'reason' | 'outcome'>> = {
  'transcript-replaced': 'reason',
  'run-finished': 'outcome',
};

/**
 * A stored event of schema `version` as this version's types describe it: older spellings of
 * a compaction reason or a run outcome become the current ones. The stored line is untouched;
 * the event keeps its `v`, so an audit still sees which version wrote it.
 */
export function upgradeStoredEvent(event: SessionEvent, version: number): SessionEvent {
  if (version >= FIRST_SNAKE_CASE_VERSION) return event;
  const field = FIELD[event.type];
  if (field === undefined) return event;
  const stored: unknown = (event as unknown as Record<string, unknown>)[field];
  const current = typeof stored === 'string' ? RENAMED[event.type]?.[stored] : undefined;
  return current === undefined ? event : ({ ...event, [field]: current } as SessionEvent);
}
