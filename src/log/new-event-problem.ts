import { shapeProblems } from '../vocabulary/schemas/describe-issues.js';
import { NewSessionEventSchema } from '../vocabulary/schemas/session-event.js';

/**
 * What is wrong with an event offered for appending, or undefined when it can be stored: its
 * envelope and its type's own fields by `NewSessionEventSchema`, and a marker's `throughSeq`
 * below its own `seq`. Item contents are the transcript's concern, except opaque
 * `providerData`, which must survive the log's JSON round trip unchanged (schema version 5).
 */
export function newEventProblem({
  event,
  seq,
}: {
  readonly event: unknown;
  readonly seq: number;
}): string | undefined {
  const problems = shapeProblems(NewSessionEventSchema, event, 'the event');
  if (problems.length > 0) return problems.join('; ');
  const { type, throughSeq } = event as { readonly type: string; readonly throughSeq?: number };
  return type === 'transcript-replaced' && Number(throughSeq) >= seq
    ? `throughSeq must be below the marker's own seq ${seq} (got number ${throughSeq})`
    : undefined;
}
