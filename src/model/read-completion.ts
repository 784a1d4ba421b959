import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { ModelError } from '../errors/model-error.js';
import { createItemId } from '../transcript/ids.js';
import type { ReasoningPart, ToolCall } from '../transcript/types.js';
import type { ModelResponse, ModelUsage } from './types.js';

/** Turns a non-streaming Chat Completions answer into a `ModelResponse`. */
export function readCompletion({
  completion,
  model,
}: {
  completion: ChatCompletion;
  model: string;
}): ModelResponse {
  // The SDK does not check the body's shape: a compatible server may send anything as JSON.
  const invalid = (problem: string): never => {
    throw new ModelError(`The model server sent a malformed answer: ${problem}.`, {
      kind: 'invalid_response',
    });
  };
  if (!isObject(completion)) invalid('the body is not a JSON object');
  const choices: unknown = completion.choices;
  if (choices !== undefined && choices !== null && !Array.isArray(choices)) {
    invalid('choices is not an array');
  }
  const choice = completion.choices?.[0];
  if (choice === undefined) {
    throw new ModelError('The model server answered with no choices.', {
      kind: 'invalid_response',
    });
  }
  if (!isObject(choice)) invalid('choices[0] is not an object');
  const message = choice.message;
  if (!isObject(message)) invalid('choices[0].message is not an object');
  const calls: unknown = message.tool_calls;
  if (calls !== undefined && calls !== null && !Array.isArray(calls)) {
    invalid('message.tool_calls is not an array');
  }
  const toolCalls = (message.tool_calls ?? []).map((call, index): ToolCall => {
    if (!isObject(call)) invalid(`tool call ${index} is not an object`);
    if (call.type === 'function' && !isObject(call.function)) {
      invalid(`tool call ${index} has no function object`);
    }
    if (call.type !== 'function') {
      throw new ModelError(
        `The model answered with a '${call.type}' tool call; only function tools are declared.`,
        { kind: 'invalid_response' },
      );
    }
    return toolCallOf({
      id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    });
  });
  return responseOf({
    text: message.content ?? '',
    reasoning: reasoningContentOf(message),
    toolCalls,
    usage: completion.usage,
    finishReason: choice.finish_reason,
    model: completion.model || model,
  });
}

/** Assembles a response, leaving out what is empty. */
export function responseOf({
  text,
  reasoning,
  toolCalls,
  usage,
  finishReason,
  model,
}: {
  text: string;
  reasoning: string;
  toolCalls: readonly ToolCall[];
  usage: CompletionUsage | null | undefined;
  finishReason: string | null | undefined;
  model: string;
}): ModelResponse {
  const reasoningParts: ReasoningPart[] = reasoning === '' ? [] : [{ text: reasoning }];
  const modelUsage = usageOf(usage);
  return {
    ...(text !== '' && { text }),
    ...(reasoningParts.length > 0 && { reasoning: reasoningParts }),
    ...(toolCalls.length > 0 && { toolCalls }),
    ...(modelUsage !== undefined && { usage: modelUsage }),
    ...(finishReason !== null && finishReason !== undefined && { finishReason }),
    model,
  };
}

/** Some compatible servers return an empty id; the loop needs a unique one to pair results. */
export function toolCallOf(call: { id: string; name: string; arguments: string }): ToolCall {
  return {
    id: call.id === '' ? createItemId('call') : call.id,
    name: call.name,
    arguments: call.arguments,
  };
}

/** The compatible `reasoning_content` field (DeepSeek, vLLM, ...), absent from the SDK's types. */
export function reasoningContentOf(value: object): string {
  const reasoning: unknown = (value as { reasoning_content?: unknown }).reasoning_content;
  return typeof reasoning === 'string' ? reasoning : '';
}

/**
 * The usage block, or none when it is not the numbers it should be: some compatible servers send
 * `usage: {}` or string counts. Such an answer is still good; only its usage report is dropped.
 */
function usageOf(usage: CompletionUsage | null | undefined): ModelUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const { prompt_tokens: promptTokens, completion_tokens: completionTokens } = usage;
  if (!isCount(promptTokens) || !isCount(completionTokens)) return undefined;
  const details: unknown = usage.prompt_tokens_details;
  const cachedTokens =
    typeof details === 'object' && details !== null
      ? (details as { cached_tokens?: unknown }).cached_tokens
      : undefined;
  return {
    promptTokens,
    completionTokens,
    ...(isCount(cachedTokens) && { cachedTokens }),
  };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
