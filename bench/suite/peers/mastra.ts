import { TokenLimiter } from '@mastra/memory/processors';
import type { Item } from '../../../src/transcript/types.js';

/** Mastra's (AI SDK v4 style) core message, as its memory processors take it. */
export type CoreMessage = Parameters<TokenLimiter['process']>[0][number];

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { raw: text };
  }
}

/** One core message per item. */
export function toCoreMessages(items: readonly Item[]): CoreMessage[] {
  return items.map(toCoreMessage);
}

function toCoreMessage(item: Item): CoreMessage {
  switch (item.kind) {
    case 'context':
      return { role: 'system', content: item.text };
    case 'user':
      return {
        role: 'user',
        content:
          typeof item.content === 'string'
            ? item.content
            : item.content.map((part) => (part.type === 'text' ? part.text : '')).join(''),
      };
    case 'assistant':
      return {
        role: 'assistant',
        content: [
          ...(item.text === undefined ? [] : [{ type: 'text' as const, text: item.text }]),
          ...(item.toolCalls ?? []).map((call) => ({
            type: 'tool-call' as const,
            toolCallId: call.id,
            toolName: call.name,
            args: parseArguments(call.arguments),
          })),
        ],
      };
    case 'toolResult':
      return {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: item.callId,
            toolName: item.toolName,
            result: item.content,
            isError: item.isError,
          },
        ],
      };
  }
}

/**
 * Mastra's history limiter for Node 20: `TokenLimiter` from @mastra/memory (the
 * `TokenLimiterProcessor` of @mastra/core 0.x only limits output; its input form needs 1.x,
 * which requires Node 22.13). Its own logger is silenced so it does not print every step.
 */
export function createMastraLimiter({ limit }: { readonly limit: number }): TokenLimiter {
  const limiter = new TokenLimiter(limit);
  const quiet = () => undefined;
  limiter.__setLogger({
    debug: quiet,
    info: quiet,
    warn: quiet,
    error: quiet,
    trackException: quiet,
    getTransports: () => new Map(),
    listLogs: async () => ({ logs: [], total: 0, page: 1, perPage: 0, hasMore: false }),
    listLogsByRunId: async () => ({ logs: [], total: 0, page: 1, perPage: 0, hasMore: false }),
  } as unknown as Parameters<TokenLimiter['__setLogger']>[0]);
  return limiter;
}

/** The items a limited list stands for: the limiter returns the very message objects it kept. */
export function coreMessagesToItems(
  messages: readonly CoreMessage[],
  indexOf: ReadonlyMap<CoreMessage, number>,
  items: readonly Item[],
): Item[] {
  return messages.map((message) => {
    const index = indexOf.get(message);
    if (index === undefined) throw new Error('bench: a limited message has no item');
    return items[index] as Item;
  });
}
