import { ProtocolError } from '../errors/protocol-error.js';
import { describeValue, isRecord } from '../vocabulary/schemas/describe-issues.js';
import { readChatMessage } from './chat/read-message.js';
import { type DetectErrorInput, defaultDetectError } from './detect-error.js';
import { createItemId } from './ids.js';
import type { Item, ProtocolProblem } from './types.js';
import { validateTranscript } from './validate-transcript.js';

export interface FromChatMessagesOptions {
  /** Refuse a transcript that breaks the tool-call protocol; default true. */
  readonly validate?: boolean;
  /** Decides `isError` for tool messages; default: content starts with `Error:`. */
  readonly detectError?: (result: DetectErrorInput) => boolean;
  /** Makes each item's id; default `createItemId()`. */
  readonly createId?: () => string;
}

/**
 * Converts OpenAI Chat Completions messages into items, one item per message, so a problem's
 * `index` is also the index of the offending message. System and developer messages become
 * context items; a tool message's `toolName` comes from its call. Whatever the plain item
 * cannot say (text parts, a `developer` role, explicit nulls, ...) is kept in `chatShape`, so
 * `toChatMessages` gives back messages deep-equal to the input.
 *
 * Throws `ProtocolError` listing every message it cannot represent without loss (audio,
 * custom tool calls, unknown fields, wrong types), and, unless `validate` is false, every
 * protocol problem of the result (for hosts that want to `repairTranscript` instead).
 *
 * @example
 * ```ts
 * import { fromChatMessages, toChatMessages } from 'loopkeeper';
 *
 * const items = fromChatMessages([
 *   { role: 'user', content: 'List the files.' },
 *   { role: 'assistant', content: 'README.md and package.json.' },
 * ]);
 * console.log(
 *   items.map((item) => item.kind),
 *   toChatMessages(items).length,
 * );
 * ```
 */
export function fromChatMessages(
  messages: readonly unknown[],
  {
    validate = true,
    detectError = defaultDetectError,
    createId = () => createItemId(),
  }: FromChatMessagesOptions = {},
): Item[] {
  if (!Array.isArray(messages)) {
    throw new ProtocolError({
      problems: [
        {
          index: 0,
          kind: 'invalid_item',
          message: `messages is not an array (got ${describeValue(messages)})`,
        },
      ],
    });
  }
  const laterCallNames = callNamesOf(messages);
  const earlierCallNames = new Map<string, string>();
  const items: Item[] = [];
  const problems: ProtocolProblem[] = [];
  messages.forEach((message: unknown, index) => {
    const read = readChatMessage(message, {
      index,
      id: createId(),
      // The nearest call before a result is the one it answers; a later one only helps name a misplaced result.
      toolNameOf: (callId) => earlierCallNames.get(callId) ?? laterCallNames.get(callId) ?? '',
      detectError,
    });
    if (read.problems !== undefined) {
      problems.push(...read.problems);
      return;
    }
    items.push(read.item);
    if (read.item.kind === 'assistant') {
      for (const call of read.item.toolCalls ?? []) earlierCallNames.set(call.id, call.name);
    }
  });
  if (problems.length > 0) throw new ProtocolError({ problems: problems });
  if (validate) {
    const protocolProblems = validateTranscript(items);
    if (protocolProblems.length > 0) throw new ProtocolError({ problems: protocolProblems });
  }
  return items;
}

function callNamesOf(messages: readonly unknown[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (!isRecord(message)) continue;
    const { tool_calls: calls } = message;
    if (!Array.isArray(calls)) continue;
    for (const call of calls as unknown[]) {
      if (!isRecord(call)) continue;
      const { id, function: called } = call;
      if (typeof id !== 'string' || !isRecord(called)) continue;
      const { name } = called;
      if (typeof name === 'string' && !names.has(id)) names.set(id, name);
    }
  }
  return names;
}
