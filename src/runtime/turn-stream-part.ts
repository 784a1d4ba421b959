import type { TelemetryEvent, TelemetryEventType } from '../events/telemetry-events.js';
import type { TurnResult } from './turn-result.js';

/** Which telemetry events of its run a turn stream yields, and under which part type. */
export const STREAM_PART_TYPES = {
  InferenceStarted: 'step_started',
  ReasoningDelta: 'reasoning_delta',
  InferenceDelta: 'text_delta',
  ToolCallDelta: 'tool_call_delta',
  InferenceFinished: 'step_finished',
  InferenceFailed: 'step_failed',
  ApprovalRequested: 'approval_requested',
  ToolCallStarted: 'tool_call_started',
  ToolCallProgress: 'tool_progress',
  ToolCallFinished: 'tool_call_finished',
  CompactionStarted: 'compaction_started',
  CompactionFinished: 'compaction_finished',
  CompactionFailed: 'compaction_failed',
  EmergencyPruneApplied: 'emergency_prune',
} as const satisfies Partial<Record<TelemetryEventType, string>>;

type StreamedEventType = keyof typeof STREAM_PART_TYPES;

/** A telemetry event of the run under its part type; every other field is the event's. */
type PartOf<Type extends StreamedEventType> = Omit<
  Extract<TelemetryEvent, { type: Type }>,
  'type'
> & { readonly type: (typeof STREAM_PART_TYPES)[Type] };

/** The last part of a turn stream: what `runTurn` would have resolved with. */
export interface TurnFinishPart {
  readonly type: 'finish';
  readonly result: TurnResult;
}

/**
 * One part of `streamTurn`: a telemetry event of the turn's run under a snake_case part type
 * (`text_delta` is `InferenceDelta`, `tool_progress` is `ToolCallProgress`, ...; the fields are
 * the event's), and last the `finish` part with the turn's result.
 */
export type TurnStreamPart =
  | { [Type in StreamedEventType]: PartOf<Type> }[StreamedEventType]
  | TurnFinishPart;

/** Every part type a turn stream can yield. */
export type TurnStreamPartType = TurnStreamPart['type'];

/** The part an event of the turn's run becomes, or undefined for events the stream leaves out. */
export function streamPartOf(event: TelemetryEvent): TurnStreamPart | undefined {
  if (!Object.hasOwn(STREAM_PART_TYPES, event.type)) return undefined;
  const type = STREAM_PART_TYPES[event.type as StreamedEventType];
  return { ...event, type } as TurnStreamPart;
}
