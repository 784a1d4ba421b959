import { pruneMessages } from 'ai';
import type { AssistantItem, Item, ToolCall } from '../../../src/transcript/types.js';

/** The AI SDK's provider-neutral message (`ModelMessage`). */
export type ModelMessage = Parameters<typeof pruneMessages>[0]['messages'][number];

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { raw: text };
  }
}

function userText(item: Extract<Item, { kind: 'user' }>): string {
  return typeof item.content === 'string'
    ? item.content
    : item.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/**
 * One model message per item, as an AI SDK app would hold the same history. Each message
 * remembers its item in `providerOptions` (spread along by `pruneMessages`), so a pruned list
 * can be mapped back and measured with the same counter as everything else.
 */
export function toModelMessages(items: readonly Item[]): ModelMessage[] {
  return items.map(toModelMessage);
}

function toModelMessage(item: Item, index: number): ModelMessage {
  const providerOptions = { bench: { index } };
  switch (item.kind) {
    case 'context':
      return { role: 'system', content: item.text, providerOptions };
    case 'user':
      return { role: 'user', content: userText(item), providerOptions };
    case 'assistant':
      return {
        role: 'assistant',
        providerOptions,
        content: [
          ...(item.reasoning ?? []).map((part) => ({
            type: 'reasoning' as const,
            text: part.text,
          })),
          ...(item.text === undefined ? [] : [{ type: 'text' as const, text: item.text }]),
          ...(item.toolCalls ?? []).map((call) => ({
            type: 'tool-call' as const,
            toolCallId: call.id,
            toolName: call.name,
            input: parseArguments(call.arguments),
          })),
        ],
      };
    case 'toolResult':
      return {
        role: 'tool',
        providerOptions,
        content: [
          {
            type: 'tool-result',
            toolCallId: item.callId,
            toolName: item.toolName,
            output: item.isError
              ? { type: 'error-text', value: item.content }
              : { type: 'text', value: item.content },
          },
        ],
      };
  }
}

/** What an AI SDK agent runs in `prepareStep` before each call: the documented example. */
export function pruneForNextStep(messages: ModelMessage[]): ModelMessage[] {
  return pruneMessages({
    messages,
    reasoning: 'before-last-message',
    toolCalls: 'before-last-2-messages',
    emptyMessages: 'remove',
  });
}

function indexOf(message: ModelMessage): number {
  const index = (message.providerOptions?.['bench'] as { index?: unknown } | undefined)?.index;
  if (typeof index !== 'number') throw new Error('bench: a pruned message lost its item index');
  return index;
}

/**
 * The items a pruned message list stands for. An assistant message that lost parts becomes a
 * derived item whose id says what is left, so the token cache treats it as new content.
 */
export function modelMessagesToItems(
  messages: readonly ModelMessage[],
  items: readonly Item[],
): Item[] {
  return messages.map((message) => {
    const item = items[indexOf(message)] as Item;
    if (message.role !== 'assistant' || item.kind !== 'assistant') return item;
    const parts = typeof message.content === 'string' ? [] : message.content;
    const keptCalls = new Set(
      parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : [])),
    );
    const keptReasoning = parts.some((part) => part.type === 'reasoning');
    const calls = item.toolCalls ?? [];
    const reasoning = item.reasoning ?? [];
    if (keptCalls.size === calls.length && (keptReasoning || reasoning.length === 0)) return item;
    const toolCalls: ToolCall[] = calls.filter((call) => keptCalls.has(call.id));
    const derived: AssistantItem = {
      kind: 'assistant',
      id: `${item.id}~pruned-${toolCalls.length}${keptReasoning ? 'r' : ''}`,
      ...(item.text === undefined ? {} : { text: item.text }),
      ...(keptReasoning && reasoning.length > 0 ? { reasoning } : {}),
      ...(toolCalls.length === 0 ? {} : { toolCalls }),
    };
    return derived;
  });
}

/** `pruneMessages` with tool calls kept in the last `keepLast` messages (reasoning as documented). */
export function pruneKeepingLast(messages: ModelMessage[], keepLast: number): ModelMessage[] {
  return pruneMessages({
    messages,
    reasoning: 'before-last-message',
    toolCalls: `before-last-${keepLast}-messages`,
    emptyMessages: 'remove',
  });
}
