import { ProtocolError } from '../errors/protocol-error.js';
import type { SessionEvent } from '../log/events.js';
import type { SessionProjection } from '../log/projection.js';
import { checkItem } from '../transcript/check-item.js';
import type { ProtocolProblem } from '../transcript/types.js';
import type { ProtocolTracker } from './protocol-tracker.js';

/**
 * Applies an event read from a session log to the projection, checking it first: every item's
 * shape, item ids unique in the history, and the tool-call protocol. History can reach a log
 * through the public low-level APIs (`SessionStore.append`, `applyCompaction`), and a broken one
 * must never be sent to a model: it fails with a `ProtocolError` naming the event's seq. The
 * tracker makes this O(new items), except after a replacement, which is checked whole once.
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
  const broken = applyOrFindBreak({ event, projection, tracker });
  if (broken === null) return;
  throw new ProtocolError({
    problems: [broken],
    message: `Session ${sessionId}: event seq ${event.seq} (${event.type}) breaks the transcript: ${broken.kind}: ${broken.message}`,
    seq: event.seq,
  });
}

/** Applies the event unless its items break the history; returns the first break, or null. */
function applyOrFindBreak({
  event,
  projection,
  tracker,
}: {
  readonly event: SessionEvent;
  readonly projection: SessionProjection;
  readonly tracker: ProtocolTracker;
}): ProtocolProblem | null {
  if (event.type === 'items-appended') {
    const start = projection.items.length;
    const problem = firstMalformed(event.items, start) ?? tracker.check(event.items, start);
    if (problem !== null) return problem;
    tracker.observe(event.items);
    projection.apply(event);
    return null;
  }
  projection.apply(event);
  if (event.type !== 'transcript-replaced') return null;
  return firstMalformed(projection.items, 0) ?? tracker.reset(projection.items);
}

function firstMalformed(items: readonly unknown[], startIndex: number): ProtocolProblem | null {
  for (const [offset, item] of items.entries()) {
    const [problem] = checkItem(item, startIndex + offset);
    if (problem !== undefined) return problem;
  }
  return null;
}
