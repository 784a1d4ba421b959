import type {
  AssistantItem,
  ContextItem,
  Item,
  ToolResultItem,
  UserItem,
} from 'loopkeeper/transcript';

/**
 * The one set of item builders the tests share: short, deterministic items whose ids the
 * expectations can name. Tools default to `bash` with `{}` arguments and `ok` as output.
 */

export function user(id: string, content = 'hi'): UserItem {
  return { kind: 'user', id, content };
}

/** An assistant item that calls a tool once per call id (parallel calls when several). */
export function calls(id: string, ...callIds: string[]): AssistantItem {
  return {
    kind: 'assistant',
    id,
    toolCalls: callIds.map((callId) => ({ id: callId, name: 'bash', arguments: '{}' })),
  };
}

/** An assistant item with any of text, reasoning and tool calls. */
export function assistant(
  id: string,
  parts: { text?: string; reasoning?: string; calls?: readonly string[] } = {},
): AssistantItem {
  return {
    kind: 'assistant',
    id,
    ...(parts.text === undefined ? {} : { text: parts.text }),
    ...(parts.reasoning === undefined ? {} : { reasoning: [{ text: parts.reasoning }] }),
    ...(parts.calls === undefined
      ? {}
      : { toolCalls: parts.calls.map((call) => ({ id: call, name: 'bash', arguments: '{}' })) }),
  };
}

export function result(
  id: string,
  callId: string,
  { toolName = 'bash', content = 'ok', isError = false }: ResultOptions = {},
): ToolResultItem {
  return { kind: 'toolResult', id, callId, toolName, content, isError };
}

export interface ResultOptions {
  readonly toolName?: string;
  readonly content?: string;
  readonly isError?: boolean;
}

/** An assistant item that ends the turn with text. */
export function answer(id: string, text = 'done'): AssistantItem {
  return { kind: 'assistant', id, text };
}

export function context(id: string, text = 'summary', name?: string): ContextItem {
  return name === undefined ? { kind: 'context', id, text } : { kind: 'context', id, name, text };
}

/** A plain exchange: a request, one tool call and its result, and the answer. */
export function exchange(prefix: string): Item[] {
  return [
    user(`${prefix}u`),
    calls(`${prefix}a`, `${prefix}c`),
    result(`${prefix}r`, `${prefix}c`),
    answer(`${prefix}z`),
  ];
}
