import type { Item } from '../transcript/types.js';

/** A message in the shape of the GenAI conventions' input/output messages JSON schema. */
export interface GenAiMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly parts: readonly Readonly<Record<string, unknown>>[];
}

/**
 * Converts transcript items to the conventions' message shape (content is opt-in).
 *
 * @example
 * ```ts
 * import { toGenAiMessages } from 'loopkeeper/otel';
 *
 * const messages = toGenAiMessages([{ kind: 'user', id: 'u1', content: 'Hi' }]);
 * // The shape of `gen_ai.input.messages`, for a host that records content itself.
 * console.log(JSON.stringify(messages));
 * ```
 */
export function toGenAiMessages(items: readonly Item[]): GenAiMessage[] {
  return items.map(toGenAiMessage);
}

function toGenAiMessage(item: Item): GenAiMessage {
  switch (item.kind) {
    case 'user':
      return {
        role: 'user',
        parts:
          typeof item.content === 'string'
            ? [{ type: 'text', content: item.content }]
            : item.content.map((part) =>
                part.type === 'text'
                  ? { type: 'text', content: part.text }
                  : { type: 'uri', modality: 'image', uri: part.url },
              ),
      };
    case 'assistant':
      return {
        role: 'assistant',
        parts: [
          ...(item.reasoning ?? []).map((part) => ({ type: 'reasoning', content: part.text })),
          ...(item.text === undefined ? [] : [{ type: 'text', content: item.text }]),
          ...(item.toolCalls ?? []).map((call) => ({
            type: 'tool_call',
            id: call.id,
            name: call.name,
            arguments: call.arguments,
          })),
        ],
      };
    case 'toolResult':
      return {
        role: 'tool',
        parts: [{ type: 'tool_call_response', id: item.callId, response: item.content }],
      };
    case 'context':
      return { role: 'system', parts: [{ type: 'text', content: item.text }] };
  }
}
