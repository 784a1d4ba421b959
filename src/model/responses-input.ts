import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { renderedChatMessage } from '../transcript/chat/rendered-message.js';
import type {
  AssistantItem,
  ContextItem,
  Item,
  JsonValue,
  ReasoningPart,
} from '../transcript/types.js';

/** The provider key of the Responses adapter's data on reasoning parts and compaction items. */
export const OPENAI_PROVIDER = 'openai';

/** The Responses adapter's own data on a reasoning part (`providerData.openai`). */
export interface OpenAIReasoningData {
  /** The server's item id (`rs_…`); sent back only when the server stores items. */
  readonly id: string;
  /** The reasoning as OpenAI encrypted it, sent back unchanged; null when not asked for. */
  readonly encryptedContent: string | null;
  /** The summary texts, in order, exactly as received. */
  readonly summary: readonly string[];
}

/** The Responses adapter's data on a provider compaction item (`providerData.openai`). */
export interface OpenAICompactionData {
  readonly type: 'compaction';
  readonly id: string;
  readonly encryptedContent: string;
}

/**
 * The Responses input items of one transcript item. With `store: false` (stateless) nothing
 * carries a server item id, since the server keeps no items to refer to ("Item with id 'rs_…'
 * not found"); reasoning travels with its `encrypted_content`, and reasoning without it (or
 * from another provider) is left out. Rendered once per item and mode.
 */
export function responsesInputOf(item: Item, { stored }: { stored: boolean }): ResponseInputItem[] {
  const cache = stored ? renderedStored : renderedStateless;
  let input = cache.get(item);
  if (input === undefined) {
    input = render(item, stored);
    cache.set(item, input);
  }
  return input;
}

const renderedStored = new WeakMap<Item, ResponseInputItem[]>();
const renderedStateless = new WeakMap<Item, ResponseInputItem[]>();

function render(item: Item, stored: boolean): ResponseInputItem[] {
  switch (item.kind) {
    case 'assistant':
      return assistantInput(item, stored);
    case 'toolResult':
      return [{ type: 'function_call_output', call_id: item.callId, output: item.content }];
    case 'context': {
      const compaction = compactionDataOf(item);
      if (compaction !== undefined) {
        return [
          {
            type: 'compaction',
            encrypted_content: compaction.encryptedContent,
            ...(stored && { id: compaction.id }),
          },
        ];
      }
      return [messageOf(item)];
    }
    case 'user':
      return [messageOf(item)];
  }
}

/** A user or context item as the message Chat Completions would get, in Responses form. */
function messageOf(item: Item): ResponseInputItem {
  const message = renderedChatMessage(item);
  const role = message.role === 'system' || message.role === 'developer' ? message.role : 'user';
  const { content } = message;
  if (typeof content === 'string' || content === null || content === undefined) {
    return { type: 'message', role, content: content ?? '' };
  }
  return {
    type: 'message',
    role,
    content: content.map((part) => {
      if (part.type === 'image_url') {
        return {
          type: 'input_image' as const,
          image_url: part.image_url.url,
          detail: part.image_url.detail ?? 'auto',
        };
      }
      return { type: 'input_text' as const, text: part.type === 'text' ? part.text : '' };
    }),
  };
}

function assistantInput(item: AssistantItem, stored: boolean): ResponseInputItem[] {
  const input: ResponseInputItem[] = [];
  for (const part of item.reasoning ?? []) {
    const reasoning = reasoningInput(part, stored);
    if (reasoning !== undefined) input.push(reasoning);
  }
  if (item.text !== undefined && item.text !== '') {
    input.push({ type: 'message', role: 'assistant', content: item.text });
  }
  for (const call of item.toolCalls ?? []) {
    input.push({
      type: 'function_call',
      call_id: call.id,
      name: call.name,
      arguments: call.arguments,
    });
  }
  return input;
}

function reasoningInput(part: ReasoningPart, stored: boolean): ResponseInputItem | undefined {
  const data = reasoningDataOf(part);
  if (data === undefined) return undefined;
  const summary = data.summary.map((text) => ({ type: 'summary_text' as const, text }));
  if (data.encryptedContent !== null) {
    // The SDK's type asks for an id, the API does not: stateless requests leave it out.
    return {
      type: 'reasoning',
      summary,
      encrypted_content: data.encryptedContent,
      ...(stored && { id: data.id }),
    } as ResponseInputItem;
  }
  // Without encrypted content only a server that stored the item can resolve it.
  return stored ? { type: 'reasoning', id: data.id, summary } : undefined;
}

/** The adapter's data on a reasoning part, when it is there and has the expected shape. */
export function reasoningDataOf(part: ReasoningPart): OpenAIReasoningData | undefined {
  const data = recordOf(part.providerData?.[OPENAI_PROVIDER]);
  if (data === undefined || typeof data['id'] !== 'string') return undefined;
  const encrypted = data['encryptedContent'];
  const summary = data['summary'];
  return {
    id: data['id'],
    encryptedContent: typeof encrypted === 'string' ? encrypted : null,
    summary: Array.isArray(summary)
      ? summary.filter((text): text is string => typeof text === 'string')
      : [],
  };
}

/** The adapter's data on a compaction item, when `item` is one. */
export function compactionDataOf(item: ContextItem): OpenAICompactionData | undefined {
  const data = recordOf(item.providerData?.[OPENAI_PROVIDER]);
  if (
    data === undefined ||
    data['type'] !== 'compaction' ||
    typeof data['id'] !== 'string' ||
    typeof data['encryptedContent'] !== 'string'
  ) {
    return undefined;
  }
  return { type: 'compaction', id: data['id'], encryptedContent: data['encryptedContent'] };
}

function recordOf(value: JsonValue | undefined): { readonly [key: string]: JsonValue } | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as { readonly [key: string]: JsonValue })
    : undefined;
}
