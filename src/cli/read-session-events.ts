import type { SessionEvent } from '../log/events.js';
import { FileSessionStore } from '../log/file-store.js';
import { CommandError } from './command-error.js';
import type { SessionLocation } from './session-location.js';

/** Reads every event of a session log (no lock: reading never blocks a writer). */
export async function readSessionEvents({
  directory,
  sessionId,
}: SessionLocation): Promise<SessionEvent[]> {
  const store = new FileSessionStore({ directory });
  const events: SessionEvent[] = [];
  try {
    const known = await store.list();
    if (!known.includes(sessionId)) {
      const hint =
        known.length === 0
          ? 'it holds no sessions'
          : `sessions there: ${known.slice(-10).join(', ')}`;
      throw new CommandError(`No session "${sessionId}" in ${directory} (${hint})`, {
        code: 'session_not_found',
      });
    }
    for await (const event of store.read(sessionId)) events.push(event);
  } finally {
    await store.close();
  }
  return events;
}
