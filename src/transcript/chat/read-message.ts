import { describeValue, isRecord } from '../describe-value.js';
import type { DetectErrorInput } from '../detect-error.js';
import type {
  AssistantItem,
  ChatShape,
  ContextItem,
  Item,
  ProtocolProblem,
  ToolCall,
  ToolResultItem,
  UserItem,
} from '../types.js';
import { MessageProblems } from './message-problems.js';
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

/** Converts one Chat Completions message into an item, or says exactly why it cannot. */
export function readChatMessage(message: unknown, context: ReadMessageContext): ReadMessage {
  if (!isRecord(message)) {
    const problems = new MessageProblems(context.index, 'chat');
    problems.invalid(`message is not an object (got ${describeValue(message)})`);
    return { problems: problems.list };
  }
  const { role } = message;
  const problems = new MessageProblems(context.index, typeof role === 'string' ? role : 'chat');
  let item: Item | undefined;
  if (role === 'system' || role === 'developer')
    item = readContext(message, role, context, problems);
  else if (role === 'user') item = readUser(message, context, problems);
  else if (role === 'assistant') item = readAssistant(message, context, problems);
  else if (role === 'tool') item = readTool(message, context, problems);
  else if (role === 'function') {
    problems.unsupported(
      "deprecated 'function' messages are not supported; use tool calls and 'tool' messages",
    );
  } else {
    problems.invalid(
      `unknown role ${describeValue(role)} (expected system, developer, user, assistant or tool)`,
    );
  }
  if (problems.list.length > 0 || item === undefined) return { problems: problems.list };
  return { item };
}

function readName(message: Record<string, unknown>, problems: MessageProblems): string | undefined {
  const { name } = message;
  if (name !== undefined && typeof name !== 'string') {
    problems.invalid(`name must be a string (got ${describeValue(name)})`);
    return undefined;
  }
  return name;
}

function shapeOf(shape: ChatShape): { chatShape?: ChatShape } {
  return Object.keys(shape).length === 0 ? {} : { chatShape: shape };
}

function partLengths(read: ReadText): ChatShape {
  return read.partLengths === undefined ? {} : { textPartLengths: read.partLengths };
}

function readContext(
  message: Record<string, unknown>,
  role: 'system' | 'developer',
  context: ReadMessageContext,
  problems: MessageProblems,
): ContextItem | undefined {
  problems.onlyFields(message, ['role', 'content', 'name']);
  const name = readName(message, problems);
  const { content } = message;
  const read = readTextContent(content, problems);
  if (read === undefined) return undefined;
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
  message: Record<string, unknown>,
  context: ReadMessageContext,
  problems: MessageProblems,
): UserItem | ContextItem | undefined {
  problems.onlyFields(message, ['role', 'content', 'name']);
  const name = readName(message, problems);
  const { content } = message;
  const fenced = name === undefined ? unfencedContext(content) : undefined;
  if (fenced !== undefined) {
    return { kind: 'context', id: context.id, name: fenced.name, text: fenced.text };
  }
  const read = readUserContent(content, problems);
  if (read === undefined) return undefined;
  return { kind: 'user', id: context.id, content: read, ...(name === undefined ? {} : { name }) };
}

function readTool(
  message: Record<string, unknown>,
  context: ReadMessageContext,
  problems: MessageProblems,
): ToolResultItem | undefined {
  problems.onlyFields(message, ['role', 'content', 'tool_call_id']);
  const { tool_call_id: callId, content } = message;
  if (typeof callId !== 'string' || callId === '') {
    problems.invalid(`tool_call_id must be a non-empty string (got ${describeValue(callId)})`);
    return undefined;
  }
  const read = readTextContent(content, problems);
  if (read === undefined) return undefined;
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
  message: Record<string, unknown>,
  context: ReadMessageContext,
  problems: MessageProblems,
): AssistantItem | undefined {
  problems.onlyFields(message, ['role', 'content', 'name', 'tool_calls', ...nullableFields]);
  const name = readName(message, problems);
  const nullFields = nullableFields.filter((field) => message[field] === null);
  const {
    content,
    refusal,
    audio,
    function_call,
    reasoning_content: reasoning,
    tool_calls,
  } = message;
  if (isRecord(audio)) problems.unsupported('audio responses are not supported');
  if (isRecord(function_call)) {
    problems.unsupported("the deprecated 'function_call' is not supported; use 'tool_calls'");
  }
  if (refusal !== undefined && refusal !== null && typeof refusal !== 'string') {
    problems.invalid(`refusal must be a string or null (got ${describeValue(refusal)})`);
  }
  if (reasoning !== undefined && reasoning !== null && typeof reasoning !== 'string') {
    problems.invalid(
      `reasoning_content must be a string or null (got ${describeValue(reasoning)})`,
    );
  }
  const read =
    content === undefined || content === null ? undefined : readTextContent(content, problems);
  const toolCalls = readToolCalls(tool_calls, problems);
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

function readToolCalls(value: unknown, problems: MessageProblems): ToolCall[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    problems.invalid(`tool_calls must be an array (got ${describeValue(value)})`);
    return undefined;
  }
  const calls: ToolCall[] = [];
  value.forEach((call: unknown, callIndex) => {
    const read = readToolCall(call, `tool_calls[${callIndex}]`, problems);
    if (read !== undefined) calls.push(read);
  });
  return calls;
}

function readToolCall(
  call: unknown,
  where: string,
  problems: MessageProblems,
): ToolCall | undefined {
  if (!isRecord(call)) {
    problems.invalid(`${where} is not an object (got ${describeValue(call)})`);
    return undefined;
  }
  const { id, type, function: called } = call;
  const validId = typeof id === 'string' && id !== '' ? id : undefined;
  if (validId === undefined) {
    problems.invalid(`${where}.id must be a non-empty string (got ${describeValue(id)})`);
  }
  if (type === 'custom') {
    const message = `${where} is a custom tool call; only function tool calls are supported`;
    problems.unsupported(message, validId);
    return undefined;
  }
  if (type !== 'function') {
    problems.invalid(`${where}.type must be 'function' (got ${describeValue(type)})`, validId);
    return undefined;
  }
  problems.onlyFields(call, ['id', 'type', 'function'], `${where}.`);
  if (!isRecord(called)) {
    problems.invalid(`${where}.function must be an object (got ${describeValue(called)})`, validId);
    return undefined;
  }
  problems.onlyFields(called, ['name', 'arguments'], `${where}.function.`);
  const { name, arguments: raw } = called;
  const validName = typeof name === 'string' && name !== '' ? name : undefined;
  if (validName === undefined) {
    const got = describeValue(name);
    problems.invalid(`${where}.function.name must be a non-empty string (got ${got})`, validId);
  }
  if (typeof raw !== 'string') {
    const got = describeValue(raw);
    problems.invalid(
      `${where}.function.arguments must be a string holding the raw JSON the model produced (got ${got})`,
      validId,
    );
    return undefined;
  }
  if (validId === undefined || validName === undefined) return undefined;
  return { id: validId, name: validName, arguments: raw };
}
