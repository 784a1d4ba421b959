import type { Item } from '../transcript/types.js';
import type { ScriptedAnswer } from './scripted-turns.js';

/** A Chat Completions message as recorded; only what a replay reads is typed. */
export interface RecordedChatMessage {
  readonly role: string;
  readonly content?: unknown;
  readonly reasoning_content?: unknown;
  readonly tool_calls?: readonly {
    readonly id?: string;
    readonly function?: { readonly name?: string; readonly arguments?: string };
  }[];
}

/** Each assistant message of a recording becomes one scripted answer, in order. */
export function answersFromChatMessages(
  messages: readonly RecordedChatMessage[],
): ScriptedAnswer[] {
  return messages
    .filter((message) => message.role === 'assistant')
    .map((message) => {
      const text = contentText(message.content);
      const reasoning =
        typeof message.reasoning_content === 'string' && message.reasoning_content !== ''
          ? message.reasoning_content
          : undefined;
      const toolCalls = (message.tool_calls ?? []).map((call) => ({
        ...(call.id !== undefined && call.id !== '' && { id: call.id }),
        name: call.function?.name ?? '',
        arguments: call.function?.arguments ?? '',
      }));
      return {
        ...(text !== undefined && { text }),
        ...(reasoning !== undefined && { reasoning }),
        ...(toolCalls.length > 0 && { toolCalls }),
      };
    });
}

/** Each assistant item of a transcript becomes one scripted answer, in order. */
export function answersFromTranscript(items: readonly Item[]): ScriptedAnswer[] {
  return items.flatMap((item) =>
    item.kind === 'assistant'
      ? [
          {
            ...(item.text !== undefined && { text: item.text }),
            ...(item.reasoning !== undefined && { reasoning: item.reasoning }),
            ...(item.toolCalls !== undefined &&
              item.toolCalls.length > 0 && { toolCalls: item.toolCalls }),
          },
        ]
      : [],
  );
}

/** Text of a message's `content`: a string, or the text parts of a part list joined. */
function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content === '' ? undefined : content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.flatMap((part: unknown) =>
    typeof part === 'object' &&
    part !== null &&
    'text' in part &&
    typeof (part as { text: unknown }).text === 'string'
      ? [(part as { text: string }).text]
      : [],
  );
  return texts.length === 0 ? undefined : texts.join('');
}
