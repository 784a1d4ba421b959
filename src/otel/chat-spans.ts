import { type Context, SpanKind, trace } from '@opentelemetry/api';
import type {
  InferenceDelta,
  InferenceFailed,
  InferenceFinished,
  InferenceStarted,
  ReasoningDelta,
  ToolCallDelta,
} from '../events/telemetry-events.js';
import {
  GEN_AI_CONVERSATION_ID,
  GEN_AI_INPUT_MESSAGES,
  GEN_AI_OPERATION_NAME,
  GEN_AI_OUTPUT_MESSAGES,
  GEN_AI_PROVIDER_NAME,
  GEN_AI_REQUEST_MODEL,
  GEN_AI_RESPONSE_FINISH_REASONS,
  GEN_AI_RESPONSE_MODEL,
  GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  GEN_AI_USAGE_INPUT_TOKENS,
  GEN_AI_USAGE_OUTPUT_TOKENS,
  OPERATION_CHAT,
} from './gen-ai-attributes.js';
import { toGenAiMessages } from './gen-ai-messages.js';
import {
  FIRST_DELTA_EVENT_NAME,
  LOOPKEEPER_REQUEST_ESTIMATED_TOKENS,
  LOOPKEEPER_REQUEST_ITEM_COUNT,
  LOOPKEEPER_RESPONSE_TEXT_LENGTH,
  LOOPKEEPER_RESPONSE_TOOL_CALLS,
  LOOPKEEPER_STEP,
} from './loopkeeper-attributes.js';
import type { RecorderSettings } from './recorder-settings.js';
import { failSpan, type RunSpans } from './run-spans.js';

/**
 * Opens the `chat {model}` span of an inference (unless `chatSpans` is `none`) and returns the
 * context the model call should run in, so spans made inside it (HTTP, or an OpenAI
 * instrumentation's own chat span) nest where they belong.
 */
export function startChat(
  run: RunSpans,
  event: InferenceStarted,
  settings: RecorderSettings,
): Context {
  if (event.model !== undefined) {
    run.requestModel ??= event.model;
    run.span.setAttribute(GEN_AI_REQUEST_MODEL, run.requestModel);
  }
  if (settings.chatSpans === 'none') return run.context;
  const items = settings.sessionOf(event.sessionId)?.items;
  const chat = settings.tracer.startSpan(
    event.model === undefined ? OPERATION_CHAT : `${OPERATION_CHAT} ${event.model}`,
    {
      kind: SpanKind.CLIENT,
      startTime: event.at,
      attributes: {
        [GEN_AI_OPERATION_NAME]: OPERATION_CHAT,
        [GEN_AI_CONVERSATION_ID]: event.sessionId,
        [LOOPKEEPER_STEP]: event.step,
        [LOOPKEEPER_REQUEST_ESTIMATED_TOKENS]: event.estimatedPromptTokens,
        ...(event.model === undefined ? {} : { [GEN_AI_REQUEST_MODEL]: event.model }),
        ...(settings.providerName === undefined
          ? {}
          : { [GEN_AI_PROVIDER_NAME]: settings.providerName }),
        ...(items === undefined ? {} : { [LOOPKEEPER_REQUEST_ITEM_COUNT]: items.length }),
        ...(items === undefined || !settings.captureContent
          ? {}
          : { [GEN_AI_INPUT_MESSAGES]: JSON.stringify(toGenAiMessages(items)) }),
      },
    },
    run.context,
  );
  run.chat = chat;
  run.chatHasDelta = false;
  return trace.setSpan(run.context, chat);
}

/** The first streamed piece of any kind (text, reasoning, tool call) is the time to first token. */
export function recordDelta(
  run: RunSpans,
  event: InferenceDelta | ReasoningDelta | ToolCallDelta,
): void {
  if (run.chat === undefined || run.chatHasDelta) return;
  run.chatHasDelta = true;
  run.chat.addEvent(FIRST_DELTA_EVENT_NAME, event.at);
}

export function finishChat(
  run: RunSpans,
  event: InferenceFinished,
  settings: RecorderSettings,
): void {
  run.inputTokens += event.usage?.promptTokens ?? 0;
  run.outputTokens += event.usage?.completionTokens ?? 0;
  const chat = run.chat;
  if (chat === undefined) return;
  run.chat = undefined;
  const answer = settings.sessionOf(event.sessionId)?.items.at(-1);
  chat.setAttributes({
    [LOOPKEEPER_RESPONSE_TOOL_CALLS]: event.toolCalls,
    ...(event.model === undefined ? {} : { [GEN_AI_RESPONSE_MODEL]: event.model }),
    ...(event.finishReason === undefined
      ? {}
      : { [GEN_AI_RESPONSE_FINISH_REASONS]: [event.finishReason] }),
    ...(event.usage === undefined
      ? {}
      : {
          [GEN_AI_USAGE_INPUT_TOKENS]: event.usage.promptTokens,
          [GEN_AI_USAGE_OUTPUT_TOKENS]: event.usage.completionTokens,
          ...(event.usage.cachedTokens === undefined
            ? {}
            : { [GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: event.usage.cachedTokens }),
        }),
  });
  // The answer is the log's last item once the inference is recorded.
  if (answer?.kind === 'assistant') {
    chat.setAttribute(LOOPKEEPER_RESPONSE_TEXT_LENGTH, answer.text?.length ?? 0);
    if (settings.captureContent) {
      const [message] = toGenAiMessages([answer]);
      chat.setAttribute(
        GEN_AI_OUTPUT_MESSAGES,
        JSON.stringify([{ ...message, finish_reason: event.finishReason ?? 'stop' }]),
      );
    }
  }
  chat.end(event.at);
}

export function failChat(run: RunSpans, event: InferenceFailed): void {
  const chat = run.chat;
  if (chat === undefined) {
    // Without chat spans the failure still shows on the run, e.g. an overflow compacted away.
    run.span.addEvent('loopkeeper.inference.failed', { 'error.type': event.error.code }, event.at);
    return;
  }
  run.chat = undefined;
  failSpan(chat, event.error);
  chat.end(event.at);
}
