import * as v from 'valibot';
import { name, nonEmpty } from './item.js';

/** Present only to be refused: a value the reader cannot represent. */
const refused = v.custom<never>(() => false, 'is not supported');

const TextPartSchema = v.strictObject({ type: v.literal('text'), text: v.string() });
const ImagePartSchema = v.strictObject({
  type: v.literal('image_url'),
  image_url: v.strictObject({
    url: v.string(),
    detail: v.optional(v.picklist(['auto', 'low', 'high'])),
  }),
});
const textContent = v.union(
  [v.string(), v.array(v.variant('type', [TextPartSchema]))],
  'must be a string or an array of text parts',
);

const ChatToolCallSchema = v.variant('type', [
  v.strictObject({
    id: nonEmpty,
    type: v.literal('function'),
    function: v.strictObject({
      name: nonEmpty,
      arguments: v.string('must be a string holding the raw JSON the model produced'),
    }),
  }),
]);

/**
 * A Chat Completions message as `fromChatMessages` reads it. Objects are strict, so a field it
 * would drop is refused instead; `audio` and `function_call` may only be null.
 */
export const ChatMessageSchema = v.variant('role', [
  v.strictObject({ role: v.picklist(['system', 'developer']), content: textContent, name }),
  v.strictObject({
    role: v.literal('user'),
    content: v.union(
      [v.string(), v.array(v.variant('type', [TextPartSchema, ImagePartSchema]))],
      'must be a string or an array of text and image_url parts',
    ),
    name,
  }),
  v.strictObject({
    role: v.literal('assistant'),
    content: v.nullish(textContent),
    name,
    tool_calls: v.optional(v.array(ChatToolCallSchema)),
    refusal: v.nullish(v.string()),
    reasoning_content: v.nullish(v.string()),
    audio: v.nullish(refused),
    function_call: v.nullish(refused),
  }),
  v.strictObject({ role: v.literal('tool'), content: textContent, tool_call_id: nonEmpty }),
]);

export type ChatMessage = v.InferOutput<typeof ChatMessageSchema>;
