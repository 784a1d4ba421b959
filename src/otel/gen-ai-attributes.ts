/**
 * Attribute, span and event names of the OpenTelemetry GenAI semantic conventions, copied
 * rather than imported: the conventions are still "Development" (now maintained in the
 * open-telemetry/semantic-conventions-genai repository) and the incubating package that
 * exports them changes its names between releases. Checked against semantic-conventions v1.41
 * (docs/gen-ai/gen-ai-spans.md and gen-ai-agent-spans.md) in November 2026; when the
 * conventions move, change them here and nowhere else.
 */
export const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
export const GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';
export const GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
export const GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens';
export const GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const GEN_AI_TOOL_TYPE = 'gen_ai.tool.type';
export const GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
/** Opt-in (content): the arguments the model gave the tool. */
export const GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
/** Opt-in (content): the messages sent to the model, as a JSON string. */
export const GEN_AI_INPUT_MESSAGES = 'gen_ai.input.messages';
/** Opt-in (content): the messages the model answered with, as a JSON string. */
export const GEN_AI_OUTPUT_MESSAGES = 'gen_ai.output.messages';
/** General (stable) convention: a low-cardinality name of the error an operation ended with. */
export const ERROR_TYPE = 'error.type';

/** Well-known values of `gen_ai.operation.name`. */
export const OPERATION_INVOKE_AGENT = 'invoke_agent';
export const OPERATION_CHAT = 'chat';
export const OPERATION_EXECUTE_TOOL = 'execute_tool';

/**
 * Span event recorded on the `invoke_agent` span when the history the model sees was
 * compacted. Not (yet) in the conventions: the name follows their `gen_ai.*` style so a
 * backend can group it with the run; its attributes are loopkeeper's own.
 */
export const GEN_AI_CONVERSATION_COMPACTED = 'gen_ai.conversation.compacted';
