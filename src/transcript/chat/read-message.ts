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
  const role = message['role'];
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
  const name = message['name'];
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
  const read = readTextContent(message['content'], problems);
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
): UserItem | undefined {
  problems.onlyFields(message, ['role', 'content', 'name']);
  const name = readName(message, problems);
  const content = readUserContent(message['content'], problems);
  if (content === undefined) return undefined;
  return { kind: 'user', id: context.id, content, ...(name === undefined ? {} : { name }) };
}

function readTool(
  message: Record<string, unknown>,
  context: ReadMessageContext,
  problems: MessageProblems,
): ToolResultItem | undefined {
  problems.onlyFields(message, ['role', 'content', 'tool_call_id']);
  const callId = message['tool_call_id'];
  if (typeof callId !== 'string' || callId === '') {
    problems.invalid(`tool_call_id must be a non-empty string (got ${describeValue(callId)})`);
    return undefined;
  }
  const read = readTextContent(message['content'], problems);
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
  if (isRecord(message['audio'])) problems.unsupported('audio responses are not supported');
  if (isRecord(message['function_call'])) {
    problems.unsupported("the deprecated 'function_call' is not supported; use 'tool_calls'");
  }
  const refusal = message['refusal'];
  if (refusal !== undefined && refusal !== null && typeof refusal !== 'string') {
    problems.invalid(`refusal must be a string or null (got ${describeValue(refusal)})`);
  }
  const reasoning = message['reasoning_content'];
  if (reasoning !== undefined && reasoning !== null && typeof reasoning !== 'string') {
    problems.invalid(
      `reasoning_content must be a string or null (got ${describeValue(reasoning)})`,
    );
  }
  const content = message['content'];
  const read =
    content === undefined || content === null ? undefined : readTextContent(content, problems);
  const toolCalls = readToolCalls(message['tool_calls'], problems);
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
    const where = `tool_calls[${callIndex}]`;
    if (!isRecord(call)) {
      problems.invalid(`${where} is not an object (got ${describeValue(call)})`);
      return;
    }
    const id = typeof call['id'] === 'string' && call['id'] !== '' ? call['id'] : undefined;
    if (id === undefined)
      problems.invalid(`${where}.id must be a non-empty string (got ${describeValue(call['id'])})`);
    if (call['type'] === 'custom') {
      problems.unsupported(
        `${where} is a custom tool call; only function tool calls are supported`,
        id,
      );
      return;
    }
    if (call['type'] !== 'function') {
      problems.invalid(`${where}.type must be 'function' (got ${describeValue(call['type'])})`, id);
      return;
    }
    problems.onlyFields(call, ['id', 'type', 'function'], `${where}.`);
    const fn = call['function'];
    if (!isRecord(fn)) {
      problems.invalid(`${where}.function must be an object (got ${describeValue(fn)})`, id);
      return;
    }
    problems.onlyFields(fn, ['name', 'arguments'], `${where}.function.`);
    const name = fn['name'];
    const args = fn['arguments'];
    if (typeof name !== 'string' || name === '') {
      problems.invalid(
        `${where}.function.name must be a non-empty string (got ${describeValue(name)})`,
        id,
      );
    }
    if (typeof args !== 'string') {
      problems.invalid(
        `${where}.function.arguments must be a string holding the raw JSON the model produced (got ${describeValue(args)})`,
        id,
      );
    }
    if (id !== undefined && typeof name === 'string' && name !== '' && typeof args === 'string') {
      calls.push({ id, name, arguments: args });
    }
  });
  return calls;
}
