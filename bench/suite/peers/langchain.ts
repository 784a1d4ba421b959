import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  trimMessages,
} from '@langchain/core/messages';
import { getEncoding } from 'js-tiktoken';
import type { Item } from '../../../src/transcript/types.js';

function parseArguments(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return { raw: text };
  }
}

/** One LangChain message per item; the message id is the item id. */
export function toLangChainMessages(items: readonly Item[]): BaseMessage[] {
  return items.map(toLangChainMessage);
}

function toLangChainMessage(item: Item): BaseMessage {
  switch (item.kind) {
    case 'context':
      return new SystemMessage({ content: item.text, id: item.id });
    case 'user':
      return new HumanMessage({
        content:
          typeof item.content === 'string'
            ? item.content
            : item.content.map((part) => (part.type === 'text' ? part.text : '')).join(''),
        id: item.id,
      });
    case 'assistant':
      return new AIMessage({
        content: item.text ?? '',
        id: item.id,
        tool_calls: (item.toolCalls ?? []).map((call) => ({
          id: call.id,
          name: call.name,
          args: parseArguments(call.arguments),
          type: 'tool_call' as const,
        })),
      });
    case 'toolResult':
      return new ToolMessage({
        content: item.content,
        tool_call_id: item.callId,
        name: item.toolName,
        id: item.id,
        status: item.isError ? 'error' : 'success',
      });
  }
}

function textOf(message: BaseMessage): string {
  const { content } = message;
  const text =
    typeof content === 'string'
      ? content
      : content
          .map((part) => ('text' in part && typeof part.text === 'string' ? part.text : ''))
          .join('');
  const calls = message instanceof AIMessage ? (message.tool_calls ?? []) : [];
  return calls.length === 0
    ? text
    : text + calls.map((call) => call.name + JSON.stringify(call.args)).join('');
}

/**
 * The token counter a careful LangChain user passes to `trimMessages`: js-tiktoken (o200k) with
 * the OpenAI cookbook's 3 tokens per message, memoized per message id so a message is encoded
 * once per session rather than once per call.
 */
export function createLangChainTokenCounter(): (messages: BaseMessage[]) => number {
  const encoder = getEncoding('o200k_base');
  const counts = new Map<string, number>();
  const countOne = (message: BaseMessage): number => {
    const key = message.id;
    const cached = key === undefined ? undefined : counts.get(key);
    if (cached !== undefined) return cached;
    const count = encoder.encode(textOf(message), [], []).length + 3;
    if (key !== undefined) counts.set(key, count);
    return count;
  };
  return (messages) => {
    let total = 0;
    for (const message of messages) total += countOne(message);
    return total;
  };
}

/** Sliding-window trimming as LangChain's docs show it: keep the newest messages that fit. */
export function trimToBudget(
  messages: BaseMessage[],
  {
    maxTokens,
    tokenCounter,
    startOn = 'human',
  }: {
    readonly maxTokens: number;
    readonly tokenCounter: (messages: BaseMessage[]) => number;
    /**
     * Where the kept part may start. The docs' chat example starts on a human message; an agent
     * transcript has few, so there it may start on an AI message too (never on a tool result,
     * which would be orphaned).
     */
    readonly startOn?: 'human' | ('human' | 'ai')[];
  },
): Promise<BaseMessage[]> {
  return trimMessages(messages, {
    maxTokens,
    tokenCounter,
    strategy: 'last',
    startOn,
    includeSystem: true,
    allowPartial: false,
  });
}

/** The items a trimmed list stands for (trimming copies messages but keeps their ids). */
export function langChainMessagesToItems(
  messages: readonly BaseMessage[],
  byId: ReadonlyMap<string, Item>,
): Item[] {
  return messages.map((message) => {
    const item = message.id === undefined ? undefined : byId.get(message.id);
    if (item === undefined) throw new Error(`bench: trimmed message ${message.id} has no item`);
    return item;
  });
}
