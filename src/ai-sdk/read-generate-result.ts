import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { ModelError } from '../errors/model-error.js';
import type { ModelResponse } from '../model/types.js';
import { emptyAnswer, finishReasonOf, reasoningOf, responseOf, usageOf } from './response-parts.js';

/**
 * A `doGenerate` result as a response: text parts joined, reasoning parts with their provider
 * data, and the tool calls the host must run. Calls the provider ran itself (web search and the
 * like), their results, sources and files are not part of loopkeeper's transcript and are left out.
 */
export function readGenerateResult({
  result,
  model,
}: {
  result: LanguageModelV3GenerateResult;
  model: string;
}): ModelResponse {
  if (typeof result !== 'object' || result === null || !Array.isArray(result.content)) {
    throw new ModelError('The AI SDK model answered without a content list.', {
      kind: 'invalid_response',
    });
  }
  const parts = emptyAnswer(result.response?.modelId ?? model);
  for (const part of result.content) {
    if (part.type === 'text') parts.text += part.text;
    else if (part.type === 'reasoning') {
      parts.reasoning.push(reasoningOf(part.text, part.providerMetadata));
    } else if (part.type === 'tool-call' && part.providerExecuted !== true) {
      parts.toolCalls.push({ id: part.toolCallId, name: part.toolName, arguments: part.input });
    }
  }
  parts.usage = usageOf(result.usage);
  parts.finishReason = finishReasonOf(result.finishReason);
  return responseOf(parts);
}
