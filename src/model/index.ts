/** The `loopkeeper/model` entry: the model adapter interface, the OpenAI Chat Completions and Responses adapters and error classification. */

export { chatRequestBody } from './chat-request.js';
export { chatRequestBytes } from './chat-request-bytes.js';
export { classifyModelError } from './classify-error.js';
export { type OpenAIChatModelOptions, openAIChatModel } from './openai-chat-model.js';
export {
  type OpenAIResponsesModelOptions,
  openAIResponsesModel,
} from './openai-responses-model.js';
export type {
  ModelAdapter,
  ModelDelta,
  ModelReasoningDelta,
  ModelRequest,
  ModelResponse,
  ModelTextDelta,
  ModelToolCallDelta,
  ModelUsage,
  ProviderCompaction,
  ToolSpec,
} from './types.js';
