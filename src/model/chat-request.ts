import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { toChatMessages } from '../transcript/to-chat-messages.js';
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
    messages: toChatMessages(request.transcript, {
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
