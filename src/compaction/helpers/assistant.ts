import type { AssistantItem } from '../../transcript/types.js';

/**
 * An assistant item with no text and no tool calls says nothing the model needs to see again;
 * strategies drop such items instead of keeping an empty message.
 */
export function isEmptyAssistant(item: AssistantItem): boolean {
  return (item.text === undefined || item.text === '') && (item.toolCalls ?? []).length === 0;
}
