import * as v from 'valibot';
import { ToolApprovalSchema } from './host-input.js';
import { nonEmpty, ProviderDataSchema } from './item.js';

/** A count or a seq: a whole number of 0 or more. */
export const CountSchema = v.pipe(
  v.number(),
  v.safeInteger('must be a whole number of 0 or more'),
  v.minValue(0, 'must be a whole number of 0 or more'),
);

/**
 * An item as the log checks it: a string id, and provider data that survives the JSON round
 * trip. The rest of an item is the transcript's concern (`ItemSchema`, checked when it loads).
 */
const LoggedItemSchema = v.looseObject({
  id: v.string(),
  providerData: v.optional(ProviderDataSchema),
  reasoning: v.optional(v.array(v.looseObject({ providerData: v.optional(ProviderDataSchema) }))),
});

export const SerializedErrorSchema = v.object({
  name: v.string(),
  code: v.string(),
  message: v.string(),
});

const LoggedToolCallSchema = v.object({ callId: nonEmpty, argumentsHash: v.string() });
const calls = <T extends v.GenericSchema>(call: T) =>
  v.pipe(v.array(call), v.nonEmpty('must list at least one call'));

/** An event offered for appending: what a store stamps (`v`, `seq`, `at`) is left out. */
export const NewSessionEventSchema = v.variant('type', [
  v.object({
    type: v.literal('items-appended'),
    runId: v.optional(v.string()),
    items: v.array(LoggedItemSchema),
  }),
  v.object({
    type: v.literal('usage-reported'),
    runId: v.optional(v.string()),
    model: v.string(),
    promptTokens: CountSchema,
    completionTokens: CountSchema,
    cachedTokens: v.optional(CountSchema),
    estimatedPromptTokens: v.optional(CountSchema),
  }),
  v.object({
    type: v.literal('transcript-replaced'),
    runId: v.optional(v.string()),
    throughSeq: CountSchema,
    view: v.array(
      v.union(
        [
          v.object({ ref: v.string() }),
          v.object({ item: LoggedItemSchema, replaces: v.optional(v.string()) }),
        ],
        'must be {ref} or {item}',
      ),
    ),
    reason: v.picklist(['threshold', 'overflow', 'payload_too_large', 'manual']),
    tier: v.picklist(['structural', 'summary', 'emergency', 'mutator', 'provider']),
    strategies: v.array(v.string()),
    tokensBefore: CountSchema,
    tokensAfter: CountSchema,
  }),
  v.object({ type: v.literal('run-started'), runId: v.string() }),
  v.object({
    type: v.literal('run-finished'),
    runId: v.string(),
    outcome: v.picklist(['completed', 'failed', 'aborted', 'step_limit']),
    steps: CountSchema,
    error: v.optional(SerializedErrorSchema),
  }),
  v.object({
    type: v.literal('tool-calls-started'),
    runId: v.string(),
    calls: calls(LoggedToolCallSchema),
  }),
  v.object({
    type: v.literal('approval-requested'),
    runId: v.string(),
    calls: calls(
      v.object({ ...LoggedToolCallSchema.entries, toolName: v.string(), arguments: v.string() }),
    ),
  }),
  v.object({
    type: v.literal('approval-decided'),
    runId: v.string(),
    ...ToolApprovalSchema.entries,
    argumentsHash: v.string(),
  }),
]);

/** A stored line's envelope: the fields a store stamps, checked before the event itself. */
export const StoredEnvelopeSchema = v.object({
  v: v.pipe(
    v.number(),
    v.safeInteger('must be a whole number'),
    v.minValue(1, 'must be 1 or more'),
  ),
  seq: CountSchema,
  at: v.string(),
});
