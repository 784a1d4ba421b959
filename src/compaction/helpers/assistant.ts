import type { AssistantItem } from '../../transcript/types.js';

/**
 * An assistant item with no text and no tool calls says nothing the model needs to see again;
 * strategies drop such items instead of keeping an empty message (unless told to keep them).
 */
export function isEmptyAssistant(item: AssistantItem): boolean {
  return (item.text === undefined || item.text === '') && (item.toolCalls ?? []).length === 0;
}

/**
 * The form in which an emptied assistant item is kept when a strategy is told not to drop it:
 * with empty text, since a chat assistant message needs content or tool calls, and without the
 * recorded chat spelling, which described the content that is gone.
 */
export function keptEmptyAssistant(item: AssistantItem): AssistantItem {
  const { chatShape: _stale, text: _empty, ...rest } = item;
  return { ...rest, text: '' };
}
