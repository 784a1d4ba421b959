import { renderedChatMessage } from '../transcript/chat/rendered-message.js';
import type { Item } from '../transcript/types.js';
import { chatRequestOptions, isSendable, startsWithBuilt } from './chat-request.js';
import type { ModelRequest, ToolSpec } from './types.js';

/** The UTF-8 JSON of one transcript array's messages so far (comma-separated), and its items. */
interface BuiltBytes {
  readonly instructions: string | undefined;
  readonly items: Item[];
  bytes: Buffer;
  used: number;
}

const builtBytes = new WeakMap<readonly Item[], BuiltBytes>();

/** The JSON after the messages, by tool list (one array per loop) and temperature. */
const tails = new WeakMap<readonly ToolSpec[], Map<number | undefined, Buffer>>();

/**
 * The Chat Completions body of `chatRequestBody`, serialized as the UTF-8 bytes of its
 * `JSON.stringify`, byte for byte. Each message is serialized once, when its item first
 * appears, and appended to a buffer kept per transcript array (the loop's history, which only
 * grows until a compaction replaces it), so a request costs the JSON of its new items plus one
 * copy of the bytes, not a serialization of the whole history. The result is a fresh copy that
 * later requests never change.
 *
 * @example
 * ```ts
 * import { chatRequestBytes } from 'loopkeeper/model';
 *
 * // The body as bytes, ready for an HTTP client; equal to JSON.stringify(chatRequestBody(...)).
 * const bytes = chatRequestBytes({
 *   request: {
 *     instructions: 'Be brief.',
 *     transcript: [{ kind: 'user', id: 'u1', content: 'Hi' }],
 *     tools: [],
 *     signal: new AbortController().signal,
 *   },
 *   model: 'gpt-4o-mini',
 *   temperature: undefined,
 * });
 * console.log(new TextDecoder().decode(bytes).startsWith('{"model":"gpt-4o-mini"'));
 * ```
 */
export function chatRequestBytes({
  request,
  model,
  temperature,
}: {
  request: ModelRequest;
  model: string;
  temperature: number | undefined;
}): Uint8Array {
  const messages = messageBytes(request.transcript, request.instructions);
  const head = Buffer.from(`{"model":${JSON.stringify(model)},"messages":[`);
  const tail = tailBytes(request, temperature);
  // Not from Node's shared pool: the body's `buffer` holds this request and nothing else.
  const body = Buffer.allocUnsafeSlow(head.length + messages.used + tail.length);
  head.copy(body, 0);
  messages.bytes.copy(body, head.length, 0, messages.used);
  tail.copy(body, head.length + messages.used);
  return body;
}

function messageBytes(transcript: readonly Item[], instructions: string | undefined): BuiltBytes {
  let state = builtBytes.get(transcript);
  if (
    state === undefined ||
    state.instructions !== instructions ||
    !startsWithBuilt(transcript, state)
  ) {
    state = { instructions, items: [], bytes: Buffer.allocUnsafeSlow(4096), used: 0 };
    if (instructions !== undefined) append(state, { role: 'system', content: instructions });
    builtBytes.set(transcript, state);
  }
  for (let index = state.items.length; index < transcript.length; index += 1) {
    const item = transcript[index] as Item;
    state.items.push(item);
    if (isSendable(item)) append(state, renderedChatMessage(item));
  }
  return state;
}

function append(state: BuiltBytes, message: unknown): void {
  const json = Buffer.from(`${state.used === 0 ? '' : ','}${JSON.stringify(message)}`);
  if (state.used + json.length > state.bytes.length) {
    // Doubling keeps appends amortized O(new bytes).
    const grown = Buffer.allocUnsafeSlow(
      Math.max(2 * state.bytes.length, state.used + json.length),
    );
    state.bytes.copy(grown, 0, 0, state.used);
    state.bytes = grown;
  }
  json.copy(state.bytes, state.used);
  state.used += json.length;
}

/** `]` closing the messages, then the other fields as `JSON.stringify` writes them. */
function tailBytes(request: ModelRequest, temperature: number | undefined): Buffer {
  let byTemperature = tails.get(request.tools);
  if (byTemperature === undefined) {
    byTemperature = new Map();
    tails.set(request.tools, byTemperature);
  }
  let tail = byTemperature.get(temperature);
  if (tail === undefined) {
    const rest = JSON.stringify(chatRequestOptions({ request, temperature }));
    tail = Buffer.from(rest === '{}' ? ']}' : `],${rest.slice(1)}`);
    byTemperature.set(temperature, tail);
  }
  return tail;
}
