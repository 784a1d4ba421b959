import { isRecord, shapeProblems } from '../vocabulary/schemas/describe-issues.js';
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
  if (plainlyValid(event)) return undefined;
  const problems = shapeProblems(NewSessionEventSchema, event, 'the event');
  if (problems.length > 0) return problems.join('; ');
  const { type, throughSeq } = event as { readonly type: string; readonly throughSeq?: number };
  return type === 'transcript-replaced' && Number(throughSeq) >= seq
    ? `throughSeq must be below the marker's own seq ${seq} (got number ${throughSeq})`
    : undefined;
}

/**
 * The two events a loop appends at every step, when the schema would accept them at a glance:
 * items without provider data or reasoning, and started calls. A quicker yes only: anything
 * else, valid or not, is checked (and its problems worded) by the schema.
 */
function plainlyValid(event: unknown): boolean {
  const { type, runId, items, calls } = isRecord(event) ? event : {};
  if (runId !== undefined && typeof runId !== 'string') return false;
  if (type === 'items-appended') return Array.isArray(items) && items.every(plainItem);
  return (
    type === 'tool-calls-started' &&
    typeof runId === 'string' &&
    Array.isArray(calls) &&
    calls.length > 0 &&
    calls.every(plainCall)
  );
}

function plainItem(item: unknown): boolean {
  const { id, providerData, reasoning } = isRecord(item) ? item : {};
  return typeof id === 'string' && providerData === undefined && reasoning === undefined;
}

function plainCall(call: unknown): boolean {
  const { callId, argumentsHash } = isRecord(call) ? call : {};
  return typeof callId === 'string' && callId !== '' && typeof argumentsHash === 'string';
}
