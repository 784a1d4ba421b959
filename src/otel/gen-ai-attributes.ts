/**
 * Attribute, span and event names of the OpenTelemetry GenAI semantic conventions, copied
 * rather than imported: the conventions are still "Development" (now maintained in the
 * open-telemetry/semantic-conventions-genai repository) and the incubating package that
 * exports them changes its names between releases. Checked against semantic-conventions v1.41
 * (docs/gen-ai/gen-ai-spans.md and gen-ai-agent-spans.md) in November 2026; when the
 * conventions move, change them here and nowhere else.
 */

/**
 * The operation a span records: `invoke_agent` (a run), `chat` (a model call) or
 * `execute_tool`.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { GEN_AI_OPERATION_NAME } from 'loopkeeper/otel';
 *
 * function agentRuns(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) => span.attributes[GEN_AI_OPERATION_NAME] === 'invoke_agent');
 * }
 * ```
 */
export const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';

/**
 * The model provider, as the host names it in `createGenAiTracing({providerName})`.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { GEN_AI_PROVIDER_NAME } from 'loopkeeper/otel';
 *
 * function providerOf(spans: readonly ReadableSpan[]) {
 *   return String(spans[0]?.attributes[GEN_AI_PROVIDER_NAME] ?? 'unknown');
 * }
 * ```
 */
export const GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';

/**
 * The agent's name on its run span (`invoke_agent {name}`), from
 * `createGenAiTracing({agentName})`.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { GEN_AI_AGENT_NAME } from 'loopkeeper/otel';
 *
 * function runsOf(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) => span.attributes[GEN_AI_AGENT_NAME] === 'helper');
 * }
 * ```
 */
export const GEN_AI_AGENT_NAME = 'gen_ai.agent.name';

/**
 * The session id of the loop, so a backend can group a session's runs.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { GEN_AI_CONVERSATION_ID } from 'loopkeeper/otel';
 *
 * function spansOfSession(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) => span.attributes[GEN_AI_CONVERSATION_ID] === 'support-42');
 * }
 * ```
 */
export const GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';

/**
 * The model a chat span asked for.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { GEN_AI_REQUEST_MODEL } from 'loopkeeper/otel';
 *
 * function requestedModels(spans: readonly ReadableSpan[]) {
 *   return new Set(spans.map((span) => span.attributes[GEN_AI_REQUEST_MODEL]));
 * }
 * ```
 */
export const GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';

/**
 * The model that answered, as the provider reported it.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { GEN_AI_RESPONSE_MODEL } from 'loopkeeper/otel';
 *
 * function answeringModels(spans: readonly ReadableSpan[]) {
 *   return new Set(spans.map((span) => span.attributes[GEN_AI_RESPONSE_MODEL]));
 * }
 * ```
 */
export const GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';

/**
 * Why the model stopped (`stop`, `tool_calls`, `length`, …), as a string array.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { GEN_AI_RESPONSE_FINISH_REASONS } from 'loopkeeper/otel';
 *
 * function truncated(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) =>
 *     String(span.attributes[GEN_AI_RESPONSE_FINISH_REASONS]).includes('length'),
 *   );
 * }
 * ```
 */
export const GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';

/**
 * Prompt tokens the provider billed for a chat span (summed on the run span).
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { GEN_AI_USAGE_INPUT_TOKENS } from 'loopkeeper/otel';
 *
 * function inputTokens(spans: readonly ReadableSpan[]) {
 *   return spans.reduce(
 *     (sum, span) => sum + Number(span.attributes[GEN_AI_USAGE_INPUT_TOKENS] ?? 0),
 *     0,
 *   );
 * }
 * ```
 */
export const GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';

/**
 * Completion tokens the provider billed for a chat span (summed on the run span).
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { GEN_AI_USAGE_OUTPUT_TOKENS } from 'loopkeeper/otel';
 *
 * function outputTokens(spans: readonly ReadableSpan[]) {
 *   return spans.reduce(
 *     (sum, span) => sum + Number(span.attributes[GEN_AI_USAGE_OUTPUT_TOKENS] ?? 0),
 *     0,
 *   );
 * }
 * ```
 */
export const GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';

/**
 * Prompt tokens served from the provider's prompt cache: how well compaction kept the prefix
 * stable.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS } from 'loopkeeper/otel';
 *
 * function cachedTokens(spans: readonly ReadableSpan[]) {
 *   return spans.reduce(
 *     (sum, span) => sum + Number(span.attributes[GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] ?? 0),
 *     0,
 *   );
 * }
 * ```
 */
export const GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens';

/**
 * The tool an `execute_tool` span ran.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { GEN_AI_TOOL_NAME } from 'loopkeeper/otel';
 *
 * function toolCalls(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) => span.attributes[GEN_AI_TOOL_NAME] === 'read_file').length;
 * }
 * ```
 */
export const GEN_AI_TOOL_NAME = 'gen_ai.tool.name';

/**
 * The kind of tool an `execute_tool` span ran; loopkeeper's tools are `function`.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { GEN_AI_TOOL_TYPE } from 'loopkeeper/otel';
 *
 * function functionTools(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) => span.attributes[GEN_AI_TOOL_TYPE] === 'function');
 * }
 * ```
 */
export const GEN_AI_TOOL_TYPE = 'gen_ai.tool.type';

/**
 * The id the model gave a tool call, matching the tool result in the session log.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { GEN_AI_TOOL_CALL_ID } from 'loopkeeper/otel';
 *
 * function spanOfCall(spans: readonly ReadableSpan[]) {
 *   return spans.find((span) => span.attributes[GEN_AI_TOOL_CALL_ID] === 'call_1');
 * }
 * ```
 */
export const GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';

/**
 * Opt-in (content): the arguments the model gave the tool.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { GEN_AI_TOOL_CALL_ARGUMENTS } from 'loopkeeper/otel';
 *
 * function argumentsOf(spans: readonly ReadableSpan[]) {
 *   return spans
 *     .map((span) => span.attributes[GEN_AI_TOOL_CALL_ARGUMENTS])
 *     .filter((value) => value !== undefined);
 * }
 * ```
 */
export const GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';

/**
 * Opt-in (content): the messages sent to the model, as a JSON string.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { GEN_AI_INPUT_MESSAGES } from 'loopkeeper/otel';
 *
 * function promptsOf(spans: readonly ReadableSpan[]) {
 *   return spans.map((span) => JSON.parse(String(span.attributes[GEN_AI_INPUT_MESSAGES] ?? '[]')));
 * }
 * ```
 */
export const GEN_AI_INPUT_MESSAGES = 'gen_ai.input.messages';

/**
 * Opt-in (content): the messages the model answered with, as a JSON string.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { GEN_AI_OUTPUT_MESSAGES } from 'loopkeeper/otel';
 *
 * function answersOf(spans: readonly ReadableSpan[]) {
 *   return spans.map((span) =>
 *     JSON.parse(String(span.attributes[GEN_AI_OUTPUT_MESSAGES] ?? '[]')),
 *   );
 * }
 * ```
 */
export const GEN_AI_OUTPUT_MESSAGES = 'gen_ai.output.messages';

/**
 * General (stable) convention: a low-cardinality name of the error an operation ended with.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { ERROR_TYPE } from 'loopkeeper/otel';
 *
 * function failures(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) => span.attributes[ERROR_TYPE] === 'model_context_overflow');
 * }
 * ```
 */
export const ERROR_TYPE = 'error.type';

// Well-known values of `gen_ai.operation.name`.

/**
 * `gen_ai.operation.name` of a run span.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { GEN_AI_OPERATION_NAME, OPERATION_INVOKE_AGENT } from 'loopkeeper/otel';
 *
 * function runSpans(spans: readonly ReadableSpan[]) {
 *   return spans.filter(
 *     (span) => span.attributes[GEN_AI_OPERATION_NAME] === OPERATION_INVOKE_AGENT,
 *   );
 * }
 * ```
 */
export const OPERATION_INVOKE_AGENT = 'invoke_agent';

/**
 * `gen_ai.operation.name` of a model call's span.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { GEN_AI_OPERATION_NAME, OPERATION_CHAT } from 'loopkeeper/otel';
 *
 * function chatSpans(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) => span.attributes[GEN_AI_OPERATION_NAME] === OPERATION_CHAT);
 * }
 * ```
 */
export const OPERATION_CHAT = 'chat';

/**
 * `gen_ai.operation.name` of a tool call's span.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { GEN_AI_OPERATION_NAME, OPERATION_EXECUTE_TOOL } from 'loopkeeper/otel';
 *
 * function toolSpans(spans: readonly ReadableSpan[]) {
 *   return spans.filter(
 *     (span) => span.attributes[GEN_AI_OPERATION_NAME] === OPERATION_EXECUTE_TOOL,
 *   );
 * }
 * ```
 */
export const OPERATION_EXECUTE_TOOL = 'execute_tool';

/**
 * Span event recorded on the `invoke_agent` span when the history the model sees was
 * compacted. Not (yet) in the conventions: the name follows their `gen_ai.*` style so a
 * backend can group it with the run; its attributes are loopkeeper's own.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { GEN_AI_CONVERSATION_COMPACTED } from 'loopkeeper/otel';
 *
 * function compactions(spans: readonly ReadableSpan[]) {
 *   return spans
 *     .flatMap((span) => span.events)
 *     .filter((event) => event.name === GEN_AI_CONVERSATION_COMPACTED);
 * }
 * ```
 */
export const GEN_AI_CONVERSATION_COMPACTED = 'gen_ai.conversation.compacted';
