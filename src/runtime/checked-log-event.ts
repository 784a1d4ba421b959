import { ProtocolError } from '../errors/protocol-error.js';
import type { SessionEvent } from '../log/events.js';
import type { SessionProjection } from '../log/projection.js';
import type { ProtocolTracker } from './protocol-tracker.js';

/**
 * Applies an event read from a session log to the projection, checking it against the
 * tool-call protocol first. History can reach a log through the public low-level APIs
 * (`SessionStore.append`, `applyCompaction`), and a broken one must never be sent to a model:
 * it fails with a `ProtocolError` naming the event's seq. The tracker makes this O(new items),
 * except after a replacement, which is checked whole once.
 */
export function applyCheckedLogEvent({
  event,
  projection,
  tracker,
  sessionId,
}: {
  readonly event: SessionEvent;
  readonly projection: SessionProjection;
  readonly tracker: ProtocolTracker;
  readonly sessionId: string;
}): void {
  const problem =
    event.type === 'items-appended' ? tracker.check(event.items, projection.items.length) : null;
  if (problem === null && event.type === 'items-appended') tracker.observe(event.items);
  if (problem === null) projection.apply(event);
  const replaced = event.type === 'transcript-replaced' ? tracker.reset(projection.items) : null;
  const broken = problem ?? replaced;
  if (broken === null) return;
  throw new ProtocolError(
    [broken],
    `Session ${sessionId}: event seq ${event.seq} (${event.type}) breaks the tool-call protocol: ${broken.kind}: ${broken.message}`,
    { seq: event.seq },
  );
}
