import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type {
  ToolCallFinished,
  ToolCallProgress,
  ToolCallStarted,
} from '../events/telemetry-events.js';
import {
  ERROR_TYPE,
  GEN_AI_CONVERSATION_ID,
  GEN_AI_OPERATION_NAME,
  GEN_AI_TOOL_CALL_ARGUMENTS,
  GEN_AI_TOOL_CALL_ID,
  GEN_AI_TOOL_NAME,
  GEN_AI_TOOL_TYPE,
  OPERATION_EXECUTE_TOOL,
} from './gen-ai-attributes.js';
import {
  LOOPKEEPER_TOOL_ARGUMENTS_LENGTH,
  LOOPKEEPER_TOOL_IS_ERROR,
  LOOPKEEPER_TOOL_OUTPUT_LENGTH,
} from './loopkeeper-attributes.js';
import type { RecorderSettings } from './recorder-settings.js';
import type { RunSpans } from './run-spans.js';

/** Opens the `execute_tool {name}` span of one call, a sibling of the chat span that asked for it. */
export function startTool(run: RunSpans, event: ToolCallStarted, settings: RecorderSettings): void {
  const call = findCall(settings, event);
  const span = settings.tracer.startSpan(
    `${OPERATION_EXECUTE_TOOL} ${event.toolName}`,
    {
      kind: SpanKind.INTERNAL,
      startTime: event.at,
      attributes: {
        [GEN_AI_OPERATION_NAME]: OPERATION_EXECUTE_TOOL,
        [GEN_AI_CONVERSATION_ID]: event.sessionId,
        [GEN_AI_TOOL_NAME]: event.toolName,
        [GEN_AI_TOOL_CALL_ID]: event.callId,
        [GEN_AI_TOOL_TYPE]: 'function',
        ...(call === undefined
          ? {}
          : { [LOOPKEEPER_TOOL_ARGUMENTS_LENGTH]: call.arguments.length }),
        ...(call === undefined || !settings.captureContent
          ? {}
          : { [GEN_AI_TOOL_CALL_ARGUMENTS]: call.arguments }),
      },
    },
    run.context,
  );
  run.tools.set(event.callId, span);
}

/** The span event a tool's progress report adds to its `execute_tool` span. */
const TOOL_PROGRESS_EVENT_NAME = 'loopkeeper.tool.progress';

/** A progress report is a moment in the call's span; what was reported stays in telemetry. */
export function recordToolProgress(run: RunSpans, event: ToolCallProgress): void {
  run.tools.get(event.callId)?.addEvent(TOOL_PROGRESS_EVENT_NAME, event.at);
}

export function finishTool(run: RunSpans, event: ToolCallFinished): void {
  const span = run.tools.get(event.callId);
  if (span === undefined) return;
  run.tools.delete(event.callId);
  span.setAttributes({
    [LOOPKEEPER_TOOL_IS_ERROR]: event.isError,
    [LOOPKEEPER_TOOL_OUTPUT_LENGTH]: event.outputLength,
  });
  // An error result is something the model reads and handles, but the tool call itself failed.
  if (event.isError) {
    span.setAttribute(ERROR_TYPE, 'tool_error');
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'The tool returned an error result.' });
  }
  span.end(event.at);
}

/** The call as the model wrote it: the assistant item that asked for it is in the log already. */
function findCall(settings: RecorderSettings, event: ToolCallStarted) {
  const items = settings.sessionOf(event.sessionId)?.items ?? [];
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const item = items[index];
    if (item?.kind !== 'assistant') continue;
    const call = item.toolCalls?.find((candidate) => candidate.id === event.callId);
    if (call !== undefined) return call;
  }
  return undefined;
}
