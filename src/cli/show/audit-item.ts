import type { TokenCounter } from '../../tokens/types.js';
import type { Item } from '../../transcript/types.js';
import { preview } from '../output/format.js';

/** One item as the audit view shows it: who, how large, and a one-line preview. */
export interface AuditItem {
  readonly id: string;
  readonly kind: Item['kind'];
  readonly tokens: number;
  readonly preview: string;
  readonly name?: string;
  /** Tool calls of an assistant item, as `name(callId)`. */
  readonly toolCalls?: readonly string[];
  /** The call a tool result answers. */
  readonly callId?: string;
  readonly isError?: boolean;
}

export function toAuditItem({ item, tokens }: { item: Item; tokens: TokenCounter }): AuditItem {
  const base = { id: item.id, kind: item.kind, tokens: tokens.countItem(item) };
  switch (item.kind) {
    case 'user':
      return {
        ...base,
        preview: preview(
          typeof item.content === 'string'
            ? item.content
            : item.content
                .map((part) => (part.type === 'text' ? part.text : `[image ${part.url}]`))
                .join(' '),
        ),
      };
    case 'assistant':
      return {
        ...base,
        preview: preview(item.text ?? ''),
        ...(item.toolCalls !== undefined &&
          item.toolCalls.length > 0 && {
            toolCalls: item.toolCalls.map((call) => `${call.name}(${call.id})`),
          }),
      };
    case 'toolResult':
      return {
        ...base,
        preview: preview(item.content),
        callId: item.callId,
        name: item.toolName,
        isError: item.isError,
      };
    case 'context':
      return {
        ...base,
        preview: preview(item.text),
        ...(item.name !== undefined && { name: item.name }),
      };
  }
}
