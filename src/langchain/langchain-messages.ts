import {
  type BaseMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
  type StoredMessage,
} from '@langchain/core/messages';
import { ProtocolError } from '../errors/protocol-error.js';
import { fingerprint } from '../integrations/fingerprint.js';
import {
  fencedContextText,
  isFencedContext,
  unfencedContext,
} from '../transcript/chat/summary-message.js';
import type {
  AssistantItem,
  Item,
  ReasoningPart,
  ToolCall,
  UserContentPart,
} from '../transcript/types.js';

/**
 * How an item was spelled as a LangChain message: LangChain's own stored form of it (ids,
 * tool-call ids, metadata, content blocks), without a string `content` the item already holds.
 * `check` fingerprints the model-visible fields it was made for; when a strategy changed them
 * the stored form still gives the message's metadata and the item gives the new content.
 */
export interface LangChainShape {
  readonly stored: StoredMessage;
  /** The stored `content` was a string, left out because the item holds it. */
  readonly contentInItem?: true;
  readonly check: string;
}

export type LangChainShapedItem = Item & { readonly langchainShape?: LangChainShape };

export interface FromLangChainMessagesOptions {
  readonly messages: readonly BaseMessage[];
  /** Item ids are `${idPrefix}${index}`. Default `'m'`. */
  readonly idPrefix?: string;
  /** The index of `messages[0]` in the conversation. Default 0. */
  readonly startIndex?: number;
}

type Block = Record<string, unknown> & { readonly type?: unknown };

function unsupported(index: number, message: string): ProtocolError {
  return new ProtocolError({ problems: [{ index, kind: 'unsupported_message', message }] });
}

function blocks(content: unknown): Block[] {
  return Array.isArray(content) ? (content as Block[]) : [];
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return blocks(content)
    .flatMap((block) =>
      block.type === 'text' && typeof block['text'] === 'string' ? [block['text']] : [],
    )
    .join('');
}

function visibleCheck(item: Item): string {
  switch (item.kind) {
    case 'user':
      return fingerprint(JSON.stringify(item.content));
    case 'assistant':
      return fingerprint(
        JSON.stringify([item.text ?? null, item.reasoning ?? [], item.toolCalls ?? []]),
      );
    case 'toolResult':
      return fingerprint(JSON.stringify([item.content, item.isError, item.callId, item.toolName]));
    case 'context':
      return fingerprint(item.text);
  }
}

/**
 * LangChain messages as loopkeeper items, losslessly: each item carries LangChain's own stored
 * form of its message (`langchainShape`), less a string content the item holds, so
 * `toLangChainMessages` gives back equal messages, also after a JSON round trip through a
 * session log. Human, AI, tool and system messages are supported; others (a `RemoveMessage`,
 * a generic chat message) and tool calls without an id are refused with a `ProtocolError`.
 *
 * @example
 * ```ts
 * import { HumanMessage } from '@langchain/core/messages';
 * import { fromLangChainMessages, toLangChainMessages } from 'loopkeeper/langchain';
 *
 * const items = fromLangChainMessages({ messages: [new HumanMessage('List the files')] });
 * console.log(items[0]?.kind, toLangChainMessages({ items }));
 * ```
 */
export function fromLangChainMessages({
  messages,
  idPrefix = 'm',
  startIndex = 0,
}: FromLangChainMessagesOptions): LangChainShapedItem[] {
  const stored = mapChatMessagesToStoredMessages([...messages]);
  return stored.map((entry, offset) => {
    const index = startIndex + offset;
    const item = itemOf(entry, `${idPrefix}${index}`, index);
    const { content } = entry.data;
    const contentInItem = typeof content === 'string';
    const { content: _held, ...rest } = entry.data;
    const kept: StoredMessage = contentInItem
      ? { type: entry.type, data: rest as StoredMessage['data'] }
      : entry;
    return {
      ...item,
      langchainShape: {
        stored: kept,
        ...(contentInItem ? { contentInItem: true as const } : {}),
        check: visibleCheck(item),
      },
    };
  });
}

function itemOf(entry: StoredMessage, id: string, index: number): Item {
  const data = entry.data as StoredMessage['data'] & Record<string, unknown>;
  const { content } = data;
  switch (entry.type) {
    case 'human': {
      // A summary or plan loopkeeper rendered (`toLangChainMessages`) reads back as that item.
      const fenced = unfencedContext(content);
      if (fenced !== undefined)
        return { kind: 'context', id, name: fenced.name, text: fenced.text };
      return {
        kind: 'user',
        id,
        content: typeof content === 'string' ? content : userParts(content),
      };
    }
    case 'system':
      return { kind: 'context', id, text: textOf(content) };
    case 'tool': {
      const callId = data.tool_call_id;
      if (typeof callId !== 'string' || callId === '') {
        throw unsupported(index, 'a tool message needs a tool_call_id');
      }
      return {
        kind: 'toolResult',
        id,
        callId,
        toolName: typeof data.name === 'string' ? data.name : '',
        content: textOf(content),
        isError: data['status'] === 'error',
      };
    }
    case 'ai':
      return assistantOf(data, id, index);
    default:
      throw unsupported(index, `a ${entry.type} message cannot be represented`);
  }
}

function userParts(content: unknown): UserContentPart[] {
  return blocks(content).map((block): UserContentPart => {
    if (block.type === 'text' && typeof block['text'] === 'string') {
      return { type: 'text', text: block['text'] };
    }
    const image = block['image_url'];
    if (block.type === 'image_url') {
      const url = typeof image === 'string' ? image : (image as { url?: unknown } | undefined)?.url;
      if (typeof url === 'string') return { type: 'image', url };
    }
    return { type: 'text', text: `[${String(block.type)}]` };
  });
}

function assistantOf(data: Record<string, unknown>, id: string, index: number): AssistantItem {
  const { content } = data;
  const reasoning: ReasoningPart[] = blocks(content).flatMap((block) => {
    const text =
      block.type === 'thinking'
        ? block['thinking']
        : block.type === 'reasoning'
          ? block['reasoning']
          : undefined;
    return typeof text === 'string' ? [{ text }] : [];
  });
  const calls = Array.isArray(data['tool_calls']) ? (data['tool_calls'] as Block[]) : [];
  const toolCalls: ToolCall[] = calls.map((call) => {
    if (typeof call['id'] !== 'string' || call['id'] === '' || typeof call['name'] !== 'string') {
      throw unsupported(index, 'a tool call needs an id and a name');
    }
    return { id: call['id'], name: call['name'], arguments: JSON.stringify(call['args'] ?? {}) };
  });
  const text = textOf(content);
  return {
    kind: 'assistant',
    id,
    ...(text === '' && (toolCalls.length > 0 || reasoning.length > 0) ? {} : { text }),
    ...(reasoning.length === 0 ? {} : { reasoning }),
    ...(toolCalls.length === 0 ? {} : { toolCalls }),
  };
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { raw: text };
  }
}

/** The stored form of an item that has no (fresh) shape: its content from the item. */
function plainStored(item: Item, shape: LangChainShape | undefined): StoredMessage {
  const data = { ...(shape?.stored.data ?? {}) } as Record<string, unknown>;
  const stored = (type: string, fields: Record<string, unknown>): StoredMessage => ({
    type,
    data: { ...data, ...fields } as unknown as StoredMessage['data'],
  });
  switch (item.kind) {
    case 'user':
      return stored('human', {
        content:
          typeof item.content === 'string'
            ? item.content
            : (item.content.map((part) =>
                part.type === 'text'
                  ? { type: 'text', text: part.text }
                  : { type: 'image_url', image_url: { url: part.url } },
              ) as never),
      });
    case 'context':
      // A summary or a model-set plan is quoted data, never the host's voice.
      return isFencedContext(item)
        ? stored('human', { content: fencedContextText(item) })
        : stored('system', { content: item.text });
    case 'toolResult':
      return stored('tool', {
        content: item.content,
        tool_call_id: item.callId,
        name: item.toolName,
        status: item.isError ? 'error' : 'success',
      });
    case 'assistant':
      return stored('ai', {
        content: item.text ?? '',
        tool_calls: (item.toolCalls ?? []).map((call) => ({
          id: call.id,
          name: call.name,
          args: parseArguments(call.arguments),
          type: 'tool_call',
        })),
      });
  }
}

/** The stored form of an item: its shape when fresh, with the content the item holds. */
export function storedMessageOf(item: Item): StoredMessage {
  const shape = (item as LangChainShapedItem).langchainShape;
  if (shape === undefined || shape.check !== visibleCheck(item)) return plainStored(item, shape);
  if (shape.contentInItem !== true) return shape.stored;
  const content =
    item.kind === 'user'
      ? (item.content as string)
      : item.kind === 'toolResult'
        ? item.content
        : item.kind === 'context'
          ? item.text
          : (item.text ?? '');
  return { ...shape.stored, data: { ...shape.stored.data, content } };
}

export interface ToLangChainMessagesOptions {
  readonly items: readonly Item[];
}

/**
 * Items as LangChain messages: the inverse of `fromLangChainMessages`. An item a strategy
 * changed (a pruned output, dropped reasoning) keeps its message's ids and metadata and takes
 * its content from the item; an item made by loopkeeper (a summary) renders plainly.
 *
 * @example
 * ```ts
 * import { toLangChainMessages } from 'loopkeeper/langchain';
 *
 * const messages = toLangChainMessages({
 *   items: [{ kind: 'user', id: 'u1', content: 'Read a.txt' }],
 * });
 * console.log(messages[0]?.getType()); // 'human'
 * ```
 */
export function toLangChainMessages({ items }: ToLangChainMessagesOptions): BaseMessage[] {
  return mapStoredMessagesToChatMessages(items.map(storedMessageOf));
}
