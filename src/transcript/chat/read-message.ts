import { type BaseIssue, safeParse } from 'valibot';
import { type ChatMessage, ChatMessageSchema } from '../../vocabulary/schemas/chat-message.js';
import { explainIssues, isRecord } from '../../vocabulary/schemas/describe-issues.js';
import type { DetectErrorInput } from '../detect-error.js';
import type {
  AssistantItem,
  ChatShape,
  ContextItem,
  Item,
  ProtocolProblem,
  ToolResultItem,
  UserItem,
} from '../types.js';
import { isSendableName } from './names.js';
import { type ReadText, readTextContent, readUserContent } from './read-content.js';
import { unfencedContext } from './summary-message.js';

export interface ReadMessageContext {
  readonly index: number;
  readonly id: string;
  /** The name of the call a tool message answers, or '' when no call has that id. */
  readonly toolNameOf: (callId: string) => string;
  readonly detectError: (result: DetectErrorInput) => boolean;
}

export type ReadMessage =
  | { readonly item: Item; readonly problems?: undefined }
  | { readonly item?: undefined; readonly problems: readonly ProtocolProblem[] };

/**
 * Converts one Chat Completions message into an item, or says exactly why it cannot, by
 * `ChatMessageSchema`: what the reader cannot represent (a field it would drop, a part or call
 * type, audio, the deprecated `function` role) is `unsupported_message`, anything else
 * malformed `invalid_item`; a problem inside a tool call carries the call's id.
 */
export function readChatMessage(message: unknown, context: ReadMessageContext): ReadMessage {
  const result = safeParse(ChatMessageSchema, message);
  if (result.success) return { item: toItem(result.output, context) };
  const { role, tool_calls: calls } = isRecord(message) ? message : {};
  const explained = explainIssues({
    issues: result.issues,
    subject: 'message',
    schema: ChatMessageSchema,
    value: message,
  });
  const problems = explained.map(({ issue, path, message: text }): ProtocolProblem => {
    const call = path[0] === 'tool_calls' && Array.isArray(calls) ? calls[Number(path[1])] : {};
    const { id } = isRecord(call) ? call : {};
    return {
      index: context.index,
      ...(typeof id === 'string' && id !== '' ? { id } : {}),
      kind: isUnsupported(issue, path) ? 'unsupported_message' : 'invalid_item',
      message: `${typeof role === 'string' ? role : 'chat'} message: ${text}`,
    };
  });
  return { problems };
}

/** A field the reader would drop, a refused value, or a type tag it does not know. */
function isUnsupported(issue: BaseIssue<unknown>, path: readonly PropertyKey[]): boolean {
  if (issue.expected === 'never' || issue.type === 'custom') return true;
  const tag = issue.type === 'variant' && typeof issue.input === 'string' && path.length > 0;
  return tag && (path.at(-1) !== 'role' || issue.input === 'function');
}

function toItem(message: ChatMessage, context: ReadMessageContext): Item {
  switch (message.role) {
    case 'system':
    case 'developer':
      return readContext(message, context);
    case 'user':
      return readUser(message, context);
    case 'assistant':
      return readAssistant(message, context);
    case 'tool':
      return readTool(message, context);
  }
}

function shapeOf(shape: ChatShape): { chatShape?: ChatShape } {
  return Object.keys(shape).length === 0 ? {} : { chatShape: shape };
}

function partLengths(read: ReadText): ChatShape {
  return read.partLengths === undefined ? {} : { textPartLengths: read.partLengths };
}

function readContext(
  { role, name, content }: Extract<ChatMessage, { role: 'system' | 'developer' }>,
  context: ReadMessageContext,
): ContextItem {
  const read = readTextContent(content);
  const shape: ChatShape = {
    ...(role === 'developer' ? { role } : {}),
    ...partLengths(read),
    ...(name !== undefined && !isSendableName(name) ? { keepName: true as const } : {}),
  };
  return {
    kind: 'context',
    id: context.id,
    text: read.text,
    ...(name === undefined ? {} : { name }),
    ...shapeOf(shape),
  };
}

function readUser(
  { name, content }: Extract<ChatMessage, { role: 'user' }>,
  context: ReadMessageContext,
): UserItem | ContextItem {
  const fenced = name === undefined ? unfencedContext(content) : undefined;
  if (fenced !== undefined) {
    return { kind: 'context', id: context.id, name: fenced.name, text: fenced.text };
  }
  const read = readUserContent(content);
  return { kind: 'user', id: context.id, content: read, ...(name === undefined ? {} : { name }) };
}

function readTool(
  { tool_call_id: callId, content }: Extract<ChatMessage, { role: 'tool' }>,
  context: ReadMessageContext,
): ToolResultItem {
  const read = readTextContent(content);
  const toolName = context.toolNameOf(callId);
  return {
    kind: 'toolResult',
    id: context.id,
    callId,
    toolName,
    content: read.text,
    isError: context.detectError({ content: read.text, toolName, callId }),
    ...shapeOf(partLengths(read)),
  };
}

const nullableFields = ['refusal', 'audio', 'function_call', 'reasoning_content'] as const;

function readAssistant(
  message: Extract<ChatMessage, { role: 'assistant' }>,
  context: ReadMessageContext,
): AssistantItem {
  const { name, content, refusal, reasoning_content: reasoning, tool_calls } = message;
  const nullFields = nullableFields.filter((field) => message[field] === null);
  const read = content === undefined || content === null ? undefined : readTextContent(content);
  const toolCalls = tool_calls?.map(({ id, function: called }) => ({ id, ...called }));
  const shape: ChatShape = {
    ...(content === undefined ? { contentAbsent: true as const } : {}),
    ...(read === undefined ? {} : partLengths(read)),
    ...(typeof refusal === 'string' ? { refusal } : {}),
    ...(nullFields.length > 0 ? { nullFields } : {}),
    ...(toolCalls?.length === 0 ? { emptyToolCalls: true as const } : {}),
  };
  return {
    kind: 'assistant',
    id: context.id,
    ...(read === undefined ? {} : { text: read.text }),
    ...(typeof reasoning === 'string' ? { reasoning: [{ text: reasoning }] } : {}),
    ...(toolCalls === undefined || toolCalls.length === 0 ? {} : { toolCalls }),
    ...(name === undefined ? {} : { name }),
    ...shapeOf(shape),
  };
}
