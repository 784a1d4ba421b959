import type { AssistantItem, Item } from '../transcript/types.js';
import { fingerprint } from './shape.js';

/** Fingerprints of an assistant item's visible components, so each can be told stale alone. */
export function assistantChecks(item: AssistantItem): Record<string, string> {
  return {
    text: fingerprint(item.text === undefined ? '\u0000' : `=${item.text}`),
    reasoning: fingerprint(JSON.stringify((item.reasoning ?? []).map((part) => part.text))),
    calls: fingerprint(JSON.stringify(item.toolCalls ?? [])),
  };
}

/** Fingerprints of what the model sees of an item (see `AiSdkShape.check`). */
export function itemChecks(item: Item): Record<string, string> {
  switch (item.kind) {
    case 'assistant':
      return assistantChecks(item);
    case 'toolResult':
      return {
        content: fingerprint(
          JSON.stringify([item.content, item.isError, item.callId, item.toolName]),
        ),
      };
    case 'user':
      return { content: fingerprint(JSON.stringify(item.content)) };
    case 'context':
      return { text: fingerprint(item.text) };
  }
}
