import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPartText,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { assertValidTranscript } from './assert-valid-transcript.js';
import { isSendableName } from './chat/names.js';
import { fencedContextText, isFencedContext } from './chat/summary-message.js';
import type {
  AssistantItem,
  ChatShape,
  ContextItem,
  Item,
  ToolResultItem,
  UserItem,
} from './types.js';

export interface ToChatMessagesOptions {
  /** The host's system prompt, rendered first as a system message; never an item. */
  readonly instructions?: string;
  /** Refuse a transcript that breaks the tool-call protocol with `ProtocolError`; default true. */
  readonly validate?: boolean;
}

/**
 * Renders items as OpenAI Chat Completions messages: `instructions` first as a system
 * message, then one message per item. Context items become system messages (developer when
 * they came from one), except a compaction summary: it quotes untrusted text, so it is sent as
 * a user message holding the summary in a fenced data block (see `fencedContextText`); so is a plan the model set with `update_plan`.
 * Reasoning goes in the `reasoning_content` field compatible servers read.
 * Chat messages have no error flag: an `isError` result is sent as its content alone.
 *
 * @example
 * ```ts
 * import { toChatMessages } from 'loopkeeper';
 *
 * const messages = toChatMessages([{ kind: 'user', id: 'u1', content: 'Hello' }], {
 *   instructions: 'You are terse.',
 * });
 * console.log(messages[0]?.role); // 'system'
 * ```
 */
export function toChatMessages(
  items: readonly Item[],
  { instructions, validate = true }: ToChatMessagesOptions = {},
): ChatCompletionMessageParam[] {
  if (validate) assertValidTranscript(items);
  const messages = items.map(itemToChatMessage);
  return instructions === undefined
    ? messages
    : [{ role: 'system', content: instructions }, ...messages];
}

/**
 * The chat message for one item. It depends on nothing but the item, so a runtime can cache
 * it per item id and build each request in O(new items).
 *
 * @example
 * ```ts
 * import { itemToChatMessage } from 'loopkeeper/transcript';
 *
 * const message = itemToChatMessage({ kind: 'assistant', id: 'a1', text: 'Done.' });
 * console.log(message); // { role: 'assistant', content: 'Done.' }
 * ```
 */
export function itemToChatMessage(item: Item): ChatCompletionMessageParam {
  switch (item.kind) {
    case 'user':
      return userMessage(item);
    case 'assistant':
      return assistantMessage(item);
    case 'toolResult':
      return toolMessage(item);
    case 'context':
      return contextMessage(item);
  }
}

type TextContent = string | ChatCompletionContentPartText[];

/** Splits text back into the parts it came from, unless it has changed since. */
function textContent(text: string, shape: ChatShape | undefined): TextContent {
  const lengths = shape?.textPartLengths;
  if (lengths === undefined || lengths.reduce((sum, length) => sum + length, 0) !== text.length) {
    return text;
  }
  let offset = 0;
  return lengths.map((length) => {
    const part = text.slice(offset, offset + length);
    offset += length;
    return { type: 'text', text: part };
  });
}

function userMessage(item: UserItem): ChatCompletionMessageParam {
  const content =
    typeof item.content === 'string'
      ? item.content
      : item.content.map((part) =>
          part.type === 'text'
            ? { type: 'text' as const, text: part.text }
            : {
                type: 'image_url' as const,
                image_url:
                  part.detail === undefined
                    ? { url: part.url }
                    : { url: part.url, detail: part.detail },
              },
        );
  return { role: 'user', content, ...(item.name === undefined ? {} : { name: item.name }) };
}

/** The assistant message as compatible servers accept it, with their `reasoning_content`. */
type AssistantMessage = ChatCompletionAssistantMessageParam & { reasoning_content?: string | null };

function assistantMessage(item: AssistantItem): ChatCompletionMessageParam {
  const shape = item.chatShape;
  const nullFields = new Set(shape?.nullFields ?? []);
  const message: AssistantMessage = { role: 'assistant' };
  if (item.text !== undefined) message.content = textContent(item.text, shape);
  else if (shape?.contentAbsent !== true) message.content = null;
  if (item.name !== undefined) message.name = item.name;
  if (shape?.refusal !== undefined) message.refusal = shape.refusal;
  else if (nullFields.has('refusal')) message.refusal = null;
  if (nullFields.has('audio')) message.audio = null;
  if (nullFields.has('function_call')) message.function_call = null;
  if (item.reasoning !== undefined && item.reasoning.length > 0) {
    message.reasoning_content = item.reasoning.map((part) => part.text).join('\n\n');
  } else if (nullFields.has('reasoning_content')) message.reasoning_content = null;
  if (item.toolCalls !== undefined && item.toolCalls.length > 0) {
    message.tool_calls = item.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  } else if (shape?.emptyToolCalls === true) message.tool_calls = [];
  return message;
}

function toolMessage(item: ToolResultItem): ChatCompletionMessageParam {
  return {
    role: 'tool',
    tool_call_id: item.callId,
    content: textContent(item.content, item.chatShape),
  };
}

function contextMessage(item: ContextItem): ChatCompletionMessageParam {
  // A summary or a model-set plan quotes untrusted text: data in the user's turn, never system authority.
  if (isFencedContext(item)) return { role: 'user', content: fencedContextText(item) };
  const role = item.chatShape?.role ?? 'system';
  const content = textContent(item.text, item.chatShape);
  const sendName =
    item.name !== undefined && (isSendableName(item.name) || item.chatShape?.keepName === true);
  return sendName ? { role, content, name: item.name as string } : { role, content };
}
