import * as v from 'valibot';

/** How deeply provider data may nest: real payloads are a level or two deep. */
const MAX_NESTING = 64;

/** Within the nesting limit, which also refuses a value that refers back to itself. */
function shallowEnough(value: unknown, depth = 0): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return (
    depth < MAX_NESTING && Object.values(value).every((entry) => shallowEnough(entry, depth + 1))
  );
}

function isPlain(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };

/** A value a JSON round trip gives back unchanged: no undefined, NaN, class instance or bigint. */
const JsonSchema: v.GenericSchema<unknown, Json> = v.lazy(() =>
  v.union(
    [
      v.null(),
      v.boolean(),
      v.pipe(v.number(), v.finite('must be a finite number, which JSON can hold')),
      v.string(),
      v.array(JsonSchema),
      JsonObjectSchema,
    ],
    'must be a JSON value',
  ),
);

// Checked before `record`, which copies into a new object and so would hide a class instance.
const JsonObjectSchema = v.pipe(
  v.custom<unknown>(isPlain, 'must be a plain object, not an array or a class instance'),
  v.record(v.string(), JsonSchema),
);

/** Opaque data keyed by provider, which the log must give back exactly as it was sent. */
export const ProviderDataSchema = v.pipe(
  v.custom<unknown>(
    shallowEnough,
    `must nest at most ${MAX_NESTING} levels and not refer back to itself`,
  ),
  JsonObjectSchema,
);

export const nonEmpty = v.pipe(v.string(), v.nonEmpty('must not be empty'));
export const name = v.optional(v.string());

export const ToolCallSchema = v.object({ id: nonEmpty, name: nonEmpty, arguments: v.string() });

const ChatShapeSchema = v.object({
  role: v.optional(v.literal('developer')),
  contentAbsent: v.optional(v.literal(true)),
  textPartLengths: v.optional(v.array(v.number())),
  refusal: v.optional(v.string()),
  nullFields: v.optional(
    v.array(v.picklist(['refusal', 'audio', 'function_call', 'reasoning_content'])),
  ),
  emptyToolCalls: v.optional(v.literal(true)),
  keepName: v.optional(v.literal(true)),
});
const chatShape = v.optional(ChatShapeSchema);

const UserContentPartSchema = v.variant('type', [
  v.object({ type: v.literal('text'), text: v.string() }),
  v.object({
    type: v.literal('image'),
    url: v.string(),
    detail: v.optional(v.picklist(['auto', 'low', 'high'])),
  }),
]);

/** A transcript item. Unknown extra fields pass, so items written by a newer version load. */
export const ItemSchema = v.variant('kind', [
  v.object({
    kind: v.literal('user'),
    id: nonEmpty,
    content: v.union(
      [v.string(), v.array(UserContentPartSchema)],
      'must be a string or an array of text and image parts',
    ),
    name,
  }),
  v.object({
    kind: v.literal('assistant'),
    id: nonEmpty,
    text: v.optional(v.string()),
    reasoning: v.optional(
      v.array(v.object({ text: v.string(), providerData: v.optional(ProviderDataSchema) })),
    ),
    // Chat providers reject an empty tool_calls array: an item without calls leaves it out.
    toolCalls: v.optional(
      v.pipe(v.array(ToolCallSchema), v.nonEmpty('must be left out when there are no calls')),
    ),
    name,
    chatShape,
  }),
  v.object({
    kind: v.literal('toolResult'),
    id: nonEmpty,
    callId: nonEmpty,
    toolName: v.string(),
    content: v.string(),
    isError: v.boolean(),
    chatShape,
  }),
  v.object({
    kind: v.literal('context'),
    id: nonEmpty,
    name,
    text: v.string(),
    chatShape,
    providerData: v.optional(ProviderDataSchema),
  }),
]);
