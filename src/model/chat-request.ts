import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { toChatMessages } from '../transcript/to-chat-messages.js';
import type { Item } from '../transcript/types.js';
import type { ModelRequest } from './types.js';

/** The Chat Completions body for a request: instructions first, items as messages, tools as functions. */
export function chatRequestBody({
  request,
  model,
  temperature,
}: {
  request: ModelRequest;
  model: string;
  temperature: number | undefined;
}): ChatCompletionCreateParamsBase {
  return {
    model,
    // The loop validates every transcript before a request, so it is not checked twice here.
    messages: toChatMessages(sendableItems(request.transcript), {
      ...(request.instructions !== undefined && { instructions: request.instructions }),
      validate: false,
    }),
    ...(temperature !== undefined && { temperature }),
    ...(request.tools.length > 0 && {
      tools: request.tools.map((tool) => ({
        type: 'function' as const,
        function: {
          name: tool.name,
          description: tool.description,
          parameters: { ...tool.parameters },
        },
      })),
      parallel_tool_calls: true,
    }),
  };
}

/**
 * Leaves out assistant items with neither text nor tool calls. Older logs can hold one (an empty
 * answer logged before the loop refused them); sent, it becomes `content: null` without
 * `tool_calls`, which OpenAI rejects with a 400, so one empty answer would poison the session.
 */
function sendableItems(items: readonly Item[]): readonly Item[] {
  const sendable = items.filter(
    (item) =>
      item.kind !== 'assistant' ||
      (item.text !== undefined && item.text !== '') ||
      (item.toolCalls !== undefined && item.toolCalls.length > 0),
  );
  return sendable.length === items.length ? items : sendable;
}
