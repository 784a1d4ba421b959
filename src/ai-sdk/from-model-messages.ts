import type { ModelMessage } from 'ai';
import { ProtocolError } from '../errors/protocol-error.js';
import { unfencedContext } from '../transcript/chat/summary-message.js';
import type {
  AssistantItem,
  ContextItem,
  ReasoningPart,
  ReasoningProviderData,
  ToolCall,
  ToolResultItem,
  UserContentPart,
  UserItem,
} from '../transcript/types.js';
import { encodeData, imageUrl, toJson } from './data-content.js';
import { assistantChecks, itemChecks } from './item-checks.js';
import type {
  AiSdkShape,
  OutputTemplate,
  PartTemplate,
  ProviderOptionsJson,
  ShapedItem,
} from './shape.js';

export interface FromModelMessagesOptions {
  readonly messages: readonly ModelMessage[];
  /** Item ids are `${idPrefix}${index}` (tool results `${idPrefix}${index}.${n}`). Default `'m'`. */
  readonly idPrefix?: string;
  /** The index of `messages[0]` in the conversation, so ids stay stable as it grows. Default 0. */
  readonly startIndex?: number;
}

type Part = Record<string, unknown> & { readonly type: string };

/**
 * AI SDK `ModelMessage`s as loopkeeper items, losslessly: each item carries an `aiSdkShape`
 * with what it cannot say itself (provider options, part order and splits, output types,
 * binary data, files and provider-executed tool parts), so `toModelMessages` gives back equal
 * messages, also after a JSON round trip through a session log. A message loopkeeper cannot
 * represent (a tool message without a tool result, an unknown part type, a tool input that is
 * not JSON) is refused with a `ProtocolError` (`unsupported_message`) naming it.
 *
 * @example
 * ```ts
 * import { fromModelMessages, toModelMessages } from 'loopkeeper/ai-sdk';
 *
 * const items = fromModelMessages({
 *   messages: [{ role: 'user', content: 'List the files' }],
 * });
 * console.log(items[0]?.kind, toModelMessages({ items }));
 * ```
 */
export function fromModelMessages({
  messages,
  idPrefix = 'm',
  startIndex = 0,
}: FromModelMessagesOptions): ShapedItem[] {
  const items: ShapedItem[] = [];
  messages.forEach((message, offset) => {
    const index = startIndex + offset;
    items.push(...messageItems(message, `${idPrefix}${index}`, index));
  });
  return items;
}

function unsupported(index: number, message: string): ProtocolError {
  return new ProtocolError({
    problems: [{ index, kind: 'unsupported_message', message }],
  });
}

function options(value: unknown): { providerOptions?: ProviderOptionsJson } {
  return value === undefined ? {} : { providerOptions: toJson(value) as ProviderOptionsJson };
}

function messageItems(message: ModelMessage, id: string, index: number): ShapedItem[] {
  const record = message as unknown as Record<string, unknown>;
  const base = options(record['providerOptions']);
  switch (message.role) {
    case 'system': {
      if (typeof message.content !== 'string') {
        throw unsupported(index, 'a system message must have string content');
      }
      const item: ContextItem = { kind: 'context', id, text: message.content };
      return [withShape(item, { role: 'system', ...base, check: itemChecks(item) })];
    }
    case 'user':
      return [userItem(message.content, id, index, base)];
    case 'assistant':
      return [assistantItem(message.content, id, index, base)];
    case 'tool':
      return toolItems(message.content as unknown as readonly Part[], id, index, base);
    default:
      throw unsupported(
        index,
        `unknown role ${JSON.stringify((message as { role?: unknown }).role)}`,
      );
  }
}

function withShape<T extends ShapedItem>(item: T, shape: AiSdkShape): T {
  const plain =
    shape.stringContent === true && shape.providerOptions === undefined && shape.role !== 'tool';
  // A plain string message needs no shape: the item renders back to it as it is.
  return plain ? item : { ...item, aiSdkShape: shape };
}

function userItem(
  content: unknown,
  id: string,
  index: number,
  base: { providerOptions?: ProviderOptionsJson },
): ShapedItem {
  if (typeof content === 'string') {
    // A summary or plan loopkeeper rendered (`toModelMessages`) reads back as that item.
    const fenced = unfencedContext(content);
    if (fenced !== undefined) {
      const item: ContextItem = { kind: 'context', id, name: fenced.name, text: fenced.text };
      return withShape(item, { role: 'user', ...base, check: itemChecks(item) });
    }
    const item: UserItem = { kind: 'user', id, content };
    return withShape(item, { role: 'user', ...base, stringContent: true, check: itemChecks(item) });
  }
  if (!Array.isArray(content))
    throw unsupported(index, 'user content must be a string or an array');
  const parts: UserContentPart[] = [];
  const templates: PartTemplate[] = [];
  for (const part of content as Part[]) {
    if (part.type === 'text' && typeof part['text'] === 'string') {
      parts.push({ type: 'text', text: part['text'] });
      templates.push({
        type: 'text',
        length: part['text'].length,
        ...options(part['providerOptions']),
      });
    } else if (part.type === 'image') {
      const encoded = encodeData(part['image']);
      if (encoded === undefined) throw unsupported(index, 'an image part holds no data or URL');
      const mediaType = typeof part['mediaType'] === 'string' ? part['mediaType'] : undefined;
      parts.push({ type: 'image', url: imageUrl(encoded.spelling, encoded.text, mediaType) });
      templates.push({
        type: 'image',
        data: encoded.spelling,
        ...(mediaType === undefined ? {} : { mediaType }),
        ...options(part['providerOptions']),
      });
    } else if (part.type === 'file') {
      parts.push({ type: 'text', text: fileLabel(part) });
      templates.push({ type: 'opaque', part: toJson(part) });
    } else {
      throw unsupported(index, `unknown user part type ${JSON.stringify(part.type)}`);
    }
  }
  const item: UserItem = { kind: 'user', id, content: parts };
  return withShape(item, { role: 'user', ...base, parts: templates, check: itemChecks(item) });
}

/** What the model-visible record says of a file it cannot read: its name and type. */
export function fileLabel(part: Part): string {
  const name = typeof part['filename'] === 'string' ? ` ${part['filename']}` : '';
  return `[file${name} (${String(part['mediaType'])})]`;
}

function assistantItem(
  content: unknown,
  id: string,
  index: number,
  base: { providerOptions?: ProviderOptionsJson },
): ShapedItem {
  if (typeof content === 'string') {
    const item: AssistantItem = { kind: 'assistant', id, text: content };
    return withShape(item, {
      role: 'assistant',
      ...base,
      stringContent: true,
      check: assistantChecks(item),
    });
  }
  if (!Array.isArray(content)) {
    throw unsupported(index, 'assistant content must be a string or an array');
  }
  const texts: string[] = [];
  const reasoning: ReasoningPart[] = [];
  const toolCalls: ToolCall[] = [];
  const templates: PartTemplate[] = [];
  for (const part of content as Part[]) {
    if (part.type === 'text' && typeof part['text'] === 'string') {
      texts.push(part['text']);
      templates.push({
        type: 'text',
        length: part['text'].length,
        ...options(part['providerOptions']),
      });
    } else if (part.type === 'reasoning' && typeof part['text'] === 'string') {
      // Provider options of reasoning (a signature, encrypted content) are the part's own
      // provider data, which every adapter sends back unchanged (log schema 5).
      const data = part['providerOptions'];
      reasoning.push({
        text: part['text'],
        ...(data === undefined ? {} : { providerData: toJson(data) as ReasoningProviderData }),
      });
      templates.push({ type: 'reasoning' });
    } else if (part.type === 'tool-call' && part['providerExecuted'] !== true) {
      toolCalls.push(toolCall(part, index));
      templates.push({
        type: 'tool-call',
        ...options(part['providerOptions']),
        ...(typeof part['input'] === 'string' ? { rawInput: true as const } : {}),
      });
    } else if (
      part.type === 'file' ||
      part.type === 'tool-call' ||
      part.type === 'tool-result' ||
      part.type === 'tool-approval-request'
    ) {
      // Provider-executed calls and their results are answered inside the message itself.
      templates.push({ type: 'opaque', part: toJson(part) });
    } else {
      throw unsupported(index, `unknown assistant part type ${JSON.stringify(part.type)}`);
    }
  }
  const item: AssistantItem = {
    kind: 'assistant',
    id,
    ...(texts.length === 0 ? {} : { text: texts.join('') }),
    ...(reasoning.length === 0 ? {} : { reasoning }),
    ...(toolCalls.length === 0 ? {} : { toolCalls }),
  };
  return withShape(item, {
    role: 'assistant',
    ...base,
    parts: templates,
    check: assistantChecks(item),
  });
}

function toolCall(part: Part, index: number): ToolCall {
  const { toolCallId, toolName, input } = part;
  if (typeof toolCallId !== 'string' || typeof toolName !== 'string') {
    throw unsupported(index, 'a tool-call part needs a string toolCallId and toolName');
  }
  const text = typeof input === 'string' ? input : JSON.stringify(input);
  if (typeof text !== 'string') {
    throw unsupported(index, `the input of tool call ${toolCallId} is not JSON`);
  }
  return { id: toolCallId, name: toolName, arguments: text };
}

function toolItems(
  content: readonly Part[],
  id: string,
  index: number,
  base: { providerOptions?: ProviderOptionsJson },
): ShapedItem[] {
  if (!Array.isArray(content)) throw unsupported(index, 'tool content must be an array');
  const groups: Part[][] = [[]];
  for (const part of content) {
    (groups[groups.length - 1] as Part[]).push(part);
    if (part.type === 'tool-result') groups.push([]);
  }
  const trailing = groups.pop() as Part[];
  if (groups.length === 0) {
    throw unsupported(index, 'a tool message without a tool-result part cannot be represented');
  }
  (groups[groups.length - 1] as Part[]).push(...trailing);
  return groups.map((group, position) =>
    toolResultItem(group, `${id}.${position}`, index, position === 0 ? base : {}, position > 0),
  );
}

function toolResultItem(
  group: readonly Part[],
  id: string,
  index: number,
  base: { providerOptions?: ProviderOptionsJson },
  joinPrevious: boolean,
): ShapedItem {
  const templates: PartTemplate[] = [];
  let result: Omit<ToolResultItem, 'id' | 'kind'> | undefined;
  for (const part of group) {
    if (part.type !== 'tool-result') {
      templates.push({ type: 'opaque', part: toJson(part) });
      continue;
    }
    const { toolCallId, toolName } = part;
    if (typeof toolCallId !== 'string' || typeof toolName !== 'string') {
      throw unsupported(index, 'a tool-result part needs a string toolCallId and toolName');
    }
    const { content, isError, output } = readOutput(part['output'], index);
    result = { callId: toolCallId, toolName, content, isError };
    templates.push({ type: 'tool-result', output, ...options(part['providerOptions']) });
  }
  const item = { kind: 'toolResult', id, ...result } as ToolResultItem;
  return {
    ...item,
    aiSdkShape: {
      role: 'tool',
      ...base,
      parts: templates,
      ...(joinPrevious ? { joinPrevious: true } : {}),
      check: itemChecks(item),
    },
  };
}

function readOutput(
  value: unknown,
  index: number,
): { content: string; isError: boolean; output: OutputTemplate } {
  const output = (value ?? {}) as Part;
  const extra = options(output['providerOptions']);
  switch (output.type) {
    case 'text':
    case 'error-text':
      if (typeof output['value'] !== 'string') break;
      return {
        content: output['value'],
        isError: output.type === 'error-text',
        output: { type: output.type, ...extra },
      };
    case 'json':
    case 'error-json': {
      const text = JSON.stringify(output['value']);
      if (typeof text !== 'string') break;
      return {
        content: text,
        isError: output.type === 'error-json',
        output: { type: output.type, ...extra },
      };
    }
    case 'execution-denied': {
      const reason = output['reason'];
      return {
        content: typeof reason === 'string' ? reason : 'Tool execution denied.',
        isError: true,
        output: { type: 'execution-denied', reason: typeof reason === 'string', ...extra },
      };
    }
    case 'content': {
      if (!Array.isArray(output['value'])) break;
      const texts: string[] = [];
      const entries = (output['value'] as Part[]).map((entry) => {
        if (entry.type === 'text' && typeof entry['text'] === 'string') {
          texts.push(entry['text']);
          return {
            type: 'text' as const,
            length: entry['text'].length,
            ...options(entry['providerOptions']),
          };
        }
        return { type: 'opaque' as const, entry: toJson(entry) };
      });
      return {
        content: texts.join('\n'),
        isError: false,
        output: { type: 'content', value: entries, ...extra },
      };
    }
  }
  throw unsupported(index, `unknown tool output ${JSON.stringify(toJson(value))}`);
}
