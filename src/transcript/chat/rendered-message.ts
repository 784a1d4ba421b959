import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { itemToChatMessage } from '../to-chat-messages.js';
import type { Item } from '../types.js';

/** Chat messages already rendered, by item: items are immutable, so one rendering serves every request. */
const rendered = new WeakMap<Item, ChatCompletionMessageParam>();

/**
 * The chat message of `item`, rendered once and then shared by every request that sends it.
 * For request bodies only: callers must not change it (`itemToChatMessage` gives a fresh copy).
 */
export function renderedChatMessage(item: Item): ChatCompletionMessageParam {
  let message = rendered.get(item);
  if (message === undefined) {
    message = itemToChatMessage(item);
    rendered.set(item, message);
  }
  return message;
}
