import type * as v from 'valibot';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { PlanUpdate } from '../../src/compaction/plan/plan.js';
import type { NewSessionEvent } from '../../src/log/events.js';
import type { ModelResponse } from '../../src/model/types.js';
import type { ToolApproval } from '../../src/runtime/turn-result.js';
import type { Item } from '../../src/transcript/types.js';
import type { SerializedError } from '../../src/vocabulary/index.js';
import { shapeProblems } from '../../src/vocabulary/schemas/describe-issues.js';
import type {
  ModelAnswerSchema,
  PlanUpdateSchema,
  ToolApprovalSchema,
} from '../../src/vocabulary/schemas/host-input.js';
import { ItemSchema } from '../../src/vocabulary/schemas/item.js';
import type {
  NewSessionEventSchema,
  SerializedErrorSchema,
} from '../../src/vocabulary/schemas/session-event.js';

/**
 * A type without `readonly` and without `| undefined` on optional fields: the public types are
 * readonly interfaces, valibot's outputs are mutable and spell optional fields `T | undefined`.
 */
type Plain<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends readonly (infer Entry)[]
    ? Plain<Entry>[]
    : T extends object
      ? { -readonly [Key in keyof T]: Plain<Exclude<T[Key], undefined>> }
      : T;

type Output<Schema extends v.GenericSchema> = Plain<v.InferOutput<Schema>>;
type EventOf<Events, Type> = Extract<Events, { type: Type }>;
/** The log checks only an item's id and provider data, so item-carrying events differ there. */
type ItemCarrying = 'items-appended' | 'transcript-replaced';

describe('vocabulary schemas', () => {
  it('output exactly the public types they check (type-level)', () => {
    expectTypeOf<Output<typeof ItemSchema>>().toEqualTypeOf<Plain<Item>>();
    expectTypeOf<Output<typeof SerializedErrorSchema>>().toEqualTypeOf<Plain<SerializedError>>();
    expectTypeOf<Output<typeof ToolApprovalSchema>>().toEqualTypeOf<Plain<ToolApproval>>();
    expectTypeOf<Output<typeof PlanUpdateSchema>>().toEqualTypeOf<Plain<PlanUpdate>>();
    type Events = v.InferOutput<typeof NewSessionEventSchema>;
    expectTypeOf<Plain<Exclude<Events, { type: ItemCarrying }>>>().toEqualTypeOf<
      Plain<Exclude<NewSessionEvent, { type: ItemCarrying }>>
    >();
    expectTypeOf<keyof EventOf<Events, 'transcript-replaced'>>().toEqualTypeOf<
      keyof EventOf<NewSessionEvent, 'transcript-replaced'>
    >();
    expectTypeOf<keyof EventOf<Events, 'items-appended'>>().toEqualTypeOf<
      keyof EventOf<NewSessionEvent, 'items-appended'>
    >();
    // A model's call may come without an id (the loop gives it one); otherwise a ToolCall.
    expectTypeOf<Output<typeof ModelAnswerSchema>>().toEqualTypeOf<
      Plain<Pick<ModelResponse, 'text' | 'toolCalls'>>
    >();
  });

  const problems = (schema: v.GenericSchema, value: unknown): string[] =>
    shapeProblems(schema, value, 'item');

  it('reports the branch the kind names, with path, what it must be and what was found', () => {
    expect(
      problems(ItemSchema, {
        kind: 'assistant',
        id: 'a1',
        toolCalls: [{ id: 'c1', name: '', arguments: 1 }],
      }),
    ).toEqual([
      "toolCalls[0].name must not be empty (got string '')",
      'toolCalls[0].arguments must be a string (got number 1)',
    ]);
    expect(problems(ItemSchema, { kind: 'robot', id: 'r1' })).toEqual([
      "kind must be 'user', 'assistant', 'toolResult' or 'context' (got string 'robot')",
    ]);
    expect(
      problems(ItemSchema, { kind: 'toolResult', id: 't1', toolName: 'x', content: '' }),
    ).toEqual([
      'callId must be a string (got nothing)',
      'isError must be true or false (got nothing)',
    ]);
  });

  it('reports inside the union branch a value matched, down to provider data', () => {
    expect(
      problems(ItemSchema, {
        kind: 'user',
        id: 'u1',
        content: [{ type: 'image', url: 7 }],
      }),
    ).toEqual(['content[0].url must be a string (got number 7)']);
    const cycle: Record<string, unknown> = {};
    cycle['self'] = cycle;
    expect(
      problems(ItemSchema, {
        kind: 'context',
        id: 'c1',
        text: '',
        providerData: { openai: { scores: [1, Number.POSITIVE_INFINITY] } },
      }),
    ).toEqual([
      'providerData.openai.scores[1] must be a finite number, which JSON can hold (got number Infinity)',
    ]);
    expect(
      problems(ItemSchema, { kind: 'context', id: 'c1', text: '', providerData: cycle }),
    ).toEqual([
      'providerData must nest at most 64 levels and not refer back to itself (got an object)',
    ]);
    expect(
      problems(ItemSchema, {
        kind: 'context',
        id: 'c1',
        text: '',
        providerData: { at: new Date() },
      }),
    ).toEqual(['providerData.at must be a JSON value (got an object)']);
  });

  it('names every problem of a value, not only the first, and shortens long strings', () => {
    expect(problems(ItemSchema, { kind: 'user', id: '', content: 3, name: 5 })).toEqual([
      "id must not be empty (got string '')",
      'content must be a string or an array of text and image parts (got number 3)',
      'name must be a string (got number 5)',
    ]);
    expect(problems(ItemSchema, { kind: 'k'.repeat(100), id: 'k1' })).toEqual([
      `kind must be 'user', 'assistant', 'toolResult' or 'context' (got string '${'k'.repeat(40)}...')`,
    ]);
    expect(problems(ItemSchema, 7)).toEqual(['item must be an object (got number 7)']);
  });
});
