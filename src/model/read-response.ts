import type { Response, ResponseOutputItem } from 'openai/resources/responses/responses';
import { ModelError } from '../errors/model-error.js';
import { createItemId } from '../transcript/ids.js';
import type { ContextItem, ReasoningPart, ToolCall } from '../transcript/types.js';
import { toolCallOf } from './read-completion.js';
import {
  OPENAI_PROVIDER,
  type OpenAICompactionData,
  type OpenAIReasoningData,
} from './responses-input.js';
import type { ModelResponse, ModelUsage } from './types.js';

/** The text a provider compaction item stands for; its state is the encrypted content. */
export const OPENAI_COMPACTION_TEXT =
  'Earlier conversation, compacted by the OpenAI Responses API on its side; only that API can read the state this item carries.';

/** Name of the context item that holds an OpenAI compaction item. */
export const OPENAI_COMPACTION_NAME = 'openai:compaction';

/**
 * Turns a finished Responses API answer into a `ModelResponse`: output text, reasoning items
 * (their summary as text, id, encrypted content and summary kept as provider data), function
 * calls, a compaction item, usage and the finish reason. A failed response throws `ModelError`.
 */
export function readResponse({
  response,
  model,
}: {
  response: Response;
  model: string;
}): ModelResponse {
  if (typeof response !== 'object' || response === null || !Array.isArray(response.output)) {
    throw new ModelError('The model server sent a malformed answer: output is not an array.', {
      kind: 'invalid_response',
    });
  }
  if (response.status === 'failed' || response.error) {
    throw responseFailure({
      code: response.error?.code ?? null,
      message: response.error?.message ?? 'the response failed',
    });
  }
  let text = '';
  const reasoning: ReasoningPart[] = [];
  const toolCalls: ToolCall[] = [];
  let compaction: ContextItem | undefined;
  for (const item of response.output as readonly ResponseOutputItem[]) {
    switch (item.type) {
      case 'message':
        for (const part of item.content) {
          text += part.type === 'output_text' ? part.text : part.refusal;
        }
        break;
      case 'reasoning':
        reasoning.push(reasoningPartOf(item));
        break;
      case 'function_call':
        toolCalls.push(
          toolCallOf({ id: item.call_id, name: item.name, arguments: item.arguments }),
        );
        break;
      case 'compaction':
        compaction = compactionItemOf(item);
        break;
      default:
        throw new ModelError(
          `The model answered with a '${item.type}' output item; only function tools are declared.`,
          { kind: 'invalid_response' },
        );
    }
  }
  const usage = usageOf(response.usage);
  const finishReason = finishReasonOf(response, toolCalls.length > 0);
  return {
    ...(text !== '' && { text }),
    ...(reasoning.length > 0 && { reasoning }),
    ...(toolCalls.length > 0 && { toolCalls }),
    ...(usage !== undefined && { usage }),
    ...(finishReason !== undefined && { finishReason }),
    model: response.model || model,
    ...(compaction !== undefined && {
      providerCompaction: { item: compaction, strategy: OPENAI_COMPACTION_NAME },
    }),
  };
}

function reasoningPartOf(item: Extract<ResponseOutputItem, { type: 'reasoning' }>): ReasoningPart {
  const summary = (item.summary ?? []).map((part) => part.text);
  const content = (item.content ?? []).map((part) => part.text);
  const data: OpenAIReasoningData = {
    id: item.id,
    encryptedContent: item.encrypted_content ?? null,
    summary,
  };
  return {
    text: (content.length > 0 ? content : summary).join('\n\n'),
    providerData: { [OPENAI_PROVIDER]: { ...data } },
  };
}

function compactionItemOf(item: Extract<ResponseOutputItem, { type: 'compaction' }>): ContextItem {
  const data: OpenAICompactionData = {
    type: 'compaction',
    id: item.id,
    encryptedContent: item.encrypted_content,
  };
  return {
    kind: 'context',
    id: createItemId('context'),
    name: OPENAI_COMPACTION_NAME,
    text: OPENAI_COMPACTION_TEXT,
    providerData: { [OPENAI_PROVIDER]: { ...data } },
  };
}

/** `stop`, `tool_calls`, or why an incomplete answer stopped (`length` for the output limit). */
function finishReasonOf(response: Response, calledTools: boolean): string | undefined {
  if (response.status === 'incomplete') {
    const reason = response.incomplete_details?.reason;
    return reason === 'max_output_tokens' ? 'length' : (reason ?? 'incomplete');
  }
  return calledTools ? 'tool_calls' : 'stop';
}

/** A failed response or a stream `error` event, typed like the HTTP errors of the same cause. */
export function responseFailure({
  code,
  message,
}: {
  code: string | null | undefined;
  message: string;
}): ModelError {
  if (code === 'context_length_exceeded') {
    return new ModelError(`The request exceeds the model's context window: ${message}`, {
      kind: 'context_overflow',
    });
  }
  if (code === 'rate_limit_exceeded') {
    return new ModelError(`The model server is rate limiting: ${message}`, {
      kind: 'rate_limited',
    });
  }
  return new ModelError(`The model server failed: ${message}`, { kind: 'server' });
}

function usageOf(usage: Response['usage']): ModelUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const { input_tokens: promptTokens, output_tokens: completionTokens } = usage;
  if (!isCount(promptTokens) || !isCount(completionTokens)) return undefined;
  const cachedTokens: unknown = usage.input_tokens_details?.cached_tokens;
  return { promptTokens, completionTokens, ...(isCount(cachedTokens) && { cachedTokens }) };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
