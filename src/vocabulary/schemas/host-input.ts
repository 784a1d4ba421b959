import * as v from 'valibot';
import { nonEmpty, ToolCallSchema } from './item.js';

/** A host's decision on a tool call that waits for approval. */
export const ToolApprovalSchema = v.object({
  callId: nonEmpty,
  approved: v.boolean(),
  reason: v.optional(v.string()),
});

/** A plan the model (or host) sends: steps with their status, and why it changed. */
export const PlanUpdateSchema = v.object({
  plan: v.array(
    v.object({
      step: v.pipe(
        v.string(),
        v.check((text) => text.trim() !== '', 'must not be blank'),
      ),
      status: v.picklist(['pending', 'in_progress', 'completed']),
    }),
  ),
  explanation: v.optional(v.string()),
});

/**
 * What a model adapter answers, as far as the loop relies on it: a call may come without an id
 * (the loop gives it a fresh one), never without a name.
 */
export const ModelAnswerSchema = v.object({
  text: v.optional(v.string()),
  toolCalls: v.optional(v.array(v.object({ ...ToolCallSchema.entries, id: v.string() }))),
});

const page = (most: number) =>
  v.pipe(
    v.number(),
    v.integer('must be a whole number'),
    v.minValue(1, 'must be 1 or more'),
    v.maxValue(most, `must be at most ${most}`),
  );

/** What a remote caller sends to a durable loop object's handlers (`loopkeeper/restate`). */
export const RemoteInputSchemas = {
  send: v.object({ content: v.custom<unknown>(() => true), runId: v.optional(nonEmpty) }),
  telemetry: v.object({
    fromSeq: v.optional(page(Number.MAX_SAFE_INTEGER), 1),
    limit: v.optional(page(1000), 100),
  }),
  approve: v.union(
    [v.object({ decisions: v.array(v.unknown()) }), v.looseObject({ callId: v.unknown() })],
    'must be {decisions: [{callId, approved, reason?}]} or one decision',
  ),
};
