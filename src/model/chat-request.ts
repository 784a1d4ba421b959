import type {
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { renderedChatMessage } from '../transcript/chat/rendered-message.js';
import type { Item } from '../transcript/types.js';
import type { ModelRequest } from './types.js';

/**
 * The Chat Completions body for a request, as `openAIChatModel` sends it: instructions first,
 * items as messages, tools as functions. Each item's message is rendered once, and while the
 * request's history only grew since the previous call the message list is extended, not
 * rebuilt, so building a request costs what is new in it.
 *
 * @example
 * ```ts
 * import { chatRequestBody } from 'loopkeeper/model';
 *
 * // The exact Chat Completions body the OpenAI adapter would send.
 * const body = chatRequestBody({
 *   request: {
 *     instructions: 'Be brief.',
 *     transcript: [{ kind: 'user', id: 'u1', content: 'Hi' }],
 *     tools: [],
 *     signal: new AbortController().signal,
 *   },
 *   model: 'gpt-4o-mini',
 *   temperature: undefined,
 * });
 * console.log(body.messages.length); // 2
 * ```
 */
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
    messages: requestMessages(request.transcript, request.instructions),
    ...chatRequestOptions({ request, temperature }),
  };
}

/** The body's fields after `messages` (temperature, tools), in the order they are sent. */
export function chatRequestOptions({
  request,
  temperature,
}: {
  request: ModelRequest;
  temperature: number | undefined;
}): Omit<ChatCompletionCreateParamsBase, 'model' | 'messages'> {
  return {
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

/** The messages built for one transcript array so far, and the items they were built from. */
interface BuiltMessages {
  readonly instructions: string | undefined;
  readonly items: Item[];
  readonly messages: ChatCompletionMessageParam[];
}

/**
 * Messages by transcript array. The loop's history is one array that only grows until a
 * compaction replaces it, so each request renders only the items added since the previous one.
 */
const built = new WeakMap<readonly Item[], BuiltMessages>();

/**
 * The request's messages: `instructions` as a leading system message, then one message per
 * sendable item, as `toChatMessages` renders them. Built by extending the previous request's
 * messages while `transcript` still starts with the items they were built from (checked by
 * identity, which is cheap); rebuilt otherwise.
 */
function requestMessages(
  transcript: readonly Item[],
  instructions: string | undefined,
): ChatCompletionMessageParam[] {
  let state = built.get(transcript);
  if (
    state === undefined ||
    state.instructions !== instructions ||
    !startsWithBuilt(transcript, state)
  ) {
    state = {
      instructions,
      items: [],
      messages: instructions === undefined ? [] : [{ role: 'system', content: instructions }],
    };
    built.set(transcript, state);
  }
  for (let index = state.items.length; index < transcript.length; index += 1) {
    const item = transcript[index] as Item;
    state.items.push(item);
    if (isSendable(item)) state.messages.push(renderedChatMessage(item));
  }
  // A copy: the array kept here grows with the next request, the one handed out must not.
  return state.messages.slice();
}

export function startsWithBuilt(
  transcript: readonly Item[],
  state: { readonly items: readonly Item[] },
): boolean {
  const { items } = state;
  if (items.length > transcript.length) return false;
  for (let index = 0; index < items.length; index += 1) {
    if (items[index] !== transcript[index]) return false;
  }
  return true;
}

/**
 * Leaves out assistant items with neither text nor tool calls. Older logs can hold one (an empty
 * answer logged before the loop refused them); sent, it becomes `content: null` without
 * `tool_calls`, which OpenAI rejects with a 400, so one empty answer would poison the session.
 */
export function isSendable(item: Item): boolean {
  return (
    item.kind !== 'assistant' ||
    (item.text !== undefined && item.text !== '') ||
    (item.toolCalls !== undefined && item.toolCalls.length > 0)
  );
}
