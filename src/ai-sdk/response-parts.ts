import type {
  LanguageModelV3FinishReason,
  LanguageModelV3Usage,
  SharedV3ProviderMetadata,
} from '@ai-sdk/provider';
import type { ModelResponse, ModelUsage } from '../model/types.js';
import type { ReasoningPart, ReasoningProviderData, ToolCall } from '../transcript/types.js';

/** What an answer is made of while it is being read, in the order the model produced it. */
export interface AnswerParts {
  text: string;
  readonly reasoning: ReasoningPart[];
  readonly toolCalls: ToolCall[];
  usage: ModelUsage | undefined;
  finishReason: string | undefined;
  model: string;
}

export function emptyAnswer(model: string): AnswerParts {
  return {
    text: '',
    reasoning: [],
    toolCalls: [],
    usage: undefined,
    finishReason: undefined,
    model,
  };
}

/**
 * A reasoning part; the provider's metadata is kept whole and untouched as its `providerData`,
 * because that is what the provider expects back (`{anthropic: {signature}}`,
 * `{openai: {itemId, reasoningEncryptedContent}}`).
 */
export function reasoningOf(
  text: string,
  providerMetadata: SharedV3ProviderMetadata | undefined,
): ReasoningPart {
  if (providerMetadata === undefined || Object.keys(providerMetadata).length === 0) return { text };
  // Metadata objects may hold `undefined` fields, which JSON (and so the log) leaves out: leave
  // them out now, so the part sent back from memory and the one read from the log are the same.
  const providerData = JSON.parse(JSON.stringify(providerMetadata)) as ReasoningProviderData;
  return { text, providerData };
}

/**
 * The unified finish reason in the Chat Completions spelling the rest of loopkeeper uses
 * (`tool_calls`, `content_filter`); `stop`, `length`, `error` and `other` stay as they are.
 */
export function finishReasonOf(reason: LanguageModelV3FinishReason | string | undefined): string {
  const unified = typeof reason === 'string' ? reason : reason?.unified;
  if (unified === 'tool-calls') return 'tool_calls';
  if (unified === 'content-filter') return 'content_filter';
  return unified ?? 'other';
}

/**
 * Reported usage: input tokens in total (cache reads and writes included, as the window counts
 * them), output tokens, and cache reads as `cachedTokens`. None when the provider gave no totals.
 */
export function usageOf(usage: LanguageModelV3Usage | undefined): ModelUsage | undefined {
  const input = usage?.inputTokens?.total;
  const output = usage?.outputTokens?.total;
  if (!isCount(input) || !isCount(output)) return undefined;
  const cached = usage?.inputTokens?.cacheRead;
  return {
    promptTokens: input,
    completionTokens: output,
    ...(isCount(cached) && { cachedTokens: cached }),
  };
}

/** The response, leaving out what is empty. */
export function responseOf(parts: AnswerParts): ModelResponse {
  return {
    ...(parts.text !== '' && { text: parts.text }),
    ...(parts.reasoning.length > 0 && { reasoning: parts.reasoning }),
    ...(parts.toolCalls.length > 0 && { toolCalls: parts.toolCalls }),
    ...(parts.usage !== undefined && { usage: parts.usage }),
    ...(parts.finishReason !== undefined && { finishReason: parts.finishReason }),
    model: parts.model,
  };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
