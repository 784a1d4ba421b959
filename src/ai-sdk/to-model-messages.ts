import type { ModelMessage } from 'ai';
import { fencedContextText, isFencedContext } from '../transcript/chat/summary-message.js';
import type {
  AssistantItem,
  ContextItem,
  Item,
  ReasoningPart,
  ToolResultItem,
  UserItem,
} from '../transcript/types.js';
import { decodeData, fromJson, imageText } from './data-content.js';
import { fileLabel } from './from-model-messages.js';
import { assistantChecks, itemChecks } from './item-checks.js';
import { type AiSdkShape, type OutputTemplate, type PartTemplate, shapeOf } from './shape.js';

export interface ToModelMessagesOptions {
  readonly items: readonly Item[];
}

type Part = Record<string, unknown>;

/**
 * Items as AI SDK `ModelMessage`s: the inverse of `fromModelMessages`. An item's `aiSdkShape`
 * restores what the item alone cannot say; a component a strategy changed (a pruned output,
 * dropped reasoning) is written plainly from the item, and its provider options go with the
 * old content. Items without a shape render plainly: context items as system messages, except a
 * compaction summary and a model-set plan, which are quoted data in a fenced user message (as
 * in every request loopkeeper sends); consecutive tool results as one tool message.
 *
 * @example
 * ```ts
 * import { toModelMessages } from 'loopkeeper/ai-sdk';
 *
 * const messages = toModelMessages({
 *   items: [
 *     { kind: 'user', id: 'u1', content: 'Read a.txt' },
 *     { kind: 'assistant', id: 'a1', toolCalls: [{ id: 'c1', name: 'read', arguments: '{"path":"a.txt"}' }] },
 *     { kind: 'toolResult', id: 't1', callId: 'c1', toolName: 'read', content: 'hello', isError: false },
 *   ],
 * });
 * console.log(messages.map((message) => message.role)); // ['user', 'assistant', 'tool']
 * ```
 */
export function toModelMessages({ items }: ToModelMessagesOptions): ModelMessage[] {
  const messages: ModelMessage[] = [];
  appendModelMessages({ messages, items, previous: undefined });
  return messages;
}

/**
 * Renders `items` onto the end of `messages`, `previous` being the item rendered last. A tool
 * result that joins the previous tool message is added to a copy of it (messages handed out
 * earlier are never changed). For incremental rendering.
 */
export function appendModelMessages({
  messages,
  items,
  previous,
}: {
  readonly messages: ModelMessage[];
  readonly items: readonly Item[];
  readonly previous: Item | undefined;
}): void {
  let before = previous;
  for (const item of items) {
    if (item.kind === 'toolResult') {
      const shape = shapeOf(item);
      const last = messages[messages.length - 1];
      const joins = shape === undefined || shape.joinPrevious === true;
      const part = toolResultParts(item, shape);
      if (joins && before?.kind === 'toolResult' && last?.role === 'tool') {
        messages[messages.length - 1] = { ...last, content: [...last.content, ...part] };
      } else {
        messages.push(asMessage({ role: 'tool', content: part, ...messageOptions(shape) }));
      }
    } else {
      messages.push(renderItem(item));
    }
    before = item;
  }
}

/** Parts are built loosely typed; the shapes they copy were the SDK's own. */
function asMessage(value: Part): ModelMessage {
  return value as unknown as ModelMessage;
}

function messageOptions(shape: AiSdkShape | undefined): Part {
  return shape?.providerOptions === undefined
    ? {}
    : { providerOptions: fromJson(shape.providerOptions) };
}

function partOptions(template: { readonly providerOptions?: unknown } | undefined): Part {
  return template?.providerOptions === undefined
    ? {}
    : { providerOptions: fromJson(template.providerOptions as never) };
}

function renderItem(item: Exclude<Item, ToolResultItem>): ModelMessage {
  const shape = shapeOf(item);
  switch (item.kind) {
    case 'context':
      return renderContext(item, shape);
    case 'user':
      return renderUser(item, shape);
    case 'assistant':
      return renderAssistant(item, shape);
  }
}

function renderContext(item: ContextItem, shape: AiSdkShape | undefined): ModelMessage {
  // A summary or a model-set plan is quoted data, never the host's voice (see summary-message.ts).
  if (isFencedContext(item)) {
    return asMessage({ role: 'user', content: fencedContextText(item), ...messageOptions(shape) });
  }
  return asMessage({ role: 'system', content: item.text, ...messageOptions(shape) });
}

function renderUser(item: UserItem, shape: AiSdkShape | undefined): ModelMessage {
  if (typeof item.content === 'string') {
    return asMessage({ role: 'user', content: item.content, ...messageOptions(shape) });
  }
  const templates = shape?.parts ?? [];
  const content = item.content.map((part, index): Part => {
    const template = templates[index];
    if (part.type === 'image') {
      if (template?.type === 'image') {
        return {
          type: 'image',
          image: decodeData(template.data, imageText(template.data, part.url)),
          ...(template.mediaType === undefined ? {} : { mediaType: template.mediaType }),
          ...partOptions(template),
        };
      }
      return { type: 'image', image: part.url };
    }
    if (template?.type === 'opaque') {
      const original = fromJson(template.part) as Part & { type: string };
      if (original.type === 'file' && fileLabel(original) === part.text) return original;
    }
    return {
      type: 'text',
      text: part.text,
      ...(template?.type === 'text' ? partOptions(template) : {}),
    };
  });
  return asMessage({ role: 'user', content, ...messageOptions(shape) });
}

function parseInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function renderAssistant(item: AssistantItem, shape: AiSdkShape | undefined): ModelMessage {
  if (shape === undefined || shape.parts === undefined) {
    // A text-only answer is a string, as the SDK writes it.
    if (item.reasoning === undefined && item.toolCalls === undefined) {
      return asMessage({ role: 'assistant', content: item.text ?? '', ...messageOptions(shape) });
    }
    return asMessage({
      role: 'assistant',
      content: plainAssistantParts(item),
      ...messageOptions(shape),
    });
  }
  const checks = assistantChecks(item);
  const fresh = {
    text: checks['text'] === shape.check['text'],
    reasoning: checks['reasoning'] === shape.check['reasoning'],
    calls: checks['calls'] === shape.check['calls'],
  };
  const content: Part[] = [];
  const placed = { text: false, reasoning: false, calls: false };
  let textOffset = 0;
  let reasoningIndex = 0;
  let callIndex = 0;
  for (const template of shape.parts) {
    if (template.type === 'text') {
      if (fresh.text) {
        const text = (item.text ?? '').slice(textOffset, textOffset + template.length);
        textOffset += template.length;
        content.push({ type: 'text', text, ...partOptions(template) });
      } else if (!placed.text && item.text !== undefined) {
        content.push({ type: 'text', text: item.text });
      }
      placed.text = true;
    } else if (template.type === 'reasoning') {
      if (fresh.reasoning) {
        const part = item.reasoning?.[reasoningIndex];
        reasoningIndex += 1;
        content.push(reasoningPart(part ?? { text: '' }));
      } else if (!placed.reasoning) {
        content.push(...reasoningParts(item));
      }
      placed.reasoning = true;
    } else if (template.type === 'tool-call') {
      if (fresh.calls) {
        const call = item.toolCalls?.[callIndex];
        callIndex += 1;
        if (call !== undefined) {
          content.push({
            type: 'tool-call',
            toolCallId: call.id,
            toolName: call.name,
            input: template.rawInput === true ? call.arguments : parseInput(call.arguments),
            ...partOptions(template),
          });
        }
      } else if (!placed.calls) {
        content.push(...callParts(item));
      }
      placed.calls = true;
    } else if (template.type === 'opaque') {
      content.push(fromJson(template.part) as Part);
    }
  }
  // Components the original message did not have (a strategy added them) go where chat puts them.
  if (!placed.reasoning) content.unshift(...reasoningParts(item));
  if (!placed.text && item.text !== undefined) {
    const at = content.findIndex((part) => part['type'] === 'tool-call');
    content.splice(at === -1 ? content.length : at, 0, { type: 'text', text: item.text });
  }
  if (!placed.calls) content.push(...callParts(item));
  return asMessage({ role: 'assistant', content, ...messageOptions(shape) });
}

function reasoningPart(part: ReasoningPart): Part {
  return {
    type: 'reasoning',
    text: part.text,
    ...(part.providerData === undefined ? {} : { providerOptions: fromJson(part.providerData) }),
  };
}

function reasoningParts(item: AssistantItem): Part[] {
  return (item.reasoning ?? []).map(reasoningPart);
}

function callParts(item: AssistantItem): Part[] {
  return (item.toolCalls ?? []).map((call) => ({
    type: 'tool-call',
    toolCallId: call.id,
    toolName: call.name,
    input: parseInput(call.arguments),
  }));
}

function plainAssistantParts(item: AssistantItem): Part[] {
  return [
    ...reasoningParts(item),
    ...(item.text === undefined ? [] : [{ type: 'text', text: item.text }]),
    ...callParts(item),
  ];
}

function toolResultParts(item: ToolResultItem, shape: AiSdkShape | undefined): never[] {
  const templates: readonly PartTemplate[] = shape?.parts ?? [
    { type: 'tool-result', output: { type: 'text' } },
  ];
  const fresh = shape !== undefined && itemChecks(item)['content'] === shape.check['content'];
  const parts: Part[] = templates.map((template) => {
    if (template.type !== 'tool-result') {
      return template.type === 'opaque' ? (fromJson(template.part) as Part) : {};
    }
    return {
      type: 'tool-result',
      toolCallId: item.callId,
      toolName: item.toolName,
      output: fresh ? output(item, template.output) : plainOutput(item),
      ...partOptions(template),
    };
  });
  return parts as never[];
}

function plainOutput(item: ToolResultItem): Part {
  return { type: item.isError ? 'error-text' : 'text', value: item.content };
}

function output(item: ToolResultItem, template: OutputTemplate): Part {
  const extra = partOptions(template);
  switch (template.type) {
    case 'text':
    case 'error-text':
      return { type: template.type, value: item.content, ...extra };
    case 'json':
    case 'error-json':
      return { type: template.type, value: JSON.parse(item.content), ...extra };
    case 'execution-denied':
      return {
        type: 'execution-denied',
        ...(template.reason ? { reason: item.content } : {}),
        ...extra,
      };
    case 'content': {
      let offset = 0;
      const value = template.value.map((entry) => {
        if (entry.type === 'opaque') return fromJson(entry.entry);
        const text = item.content.slice(offset, offset + entry.length);
        offset += entry.length + 1;
        return { type: 'text', text, ...partOptions(entry) };
      });
      return { type: 'content', value, ...extra };
    }
  }
}
