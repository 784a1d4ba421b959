import fc from 'fast-check';
import { COMPACTION_SUMMARY_NAME, type Item } from 'loopkeeper';
import type {
  AssistantItem,
  ContextItem,
  ProtocolProblemKind,
  ReasoningPart,
  ToolResultItem,
  UserContentPart,
  UserItem,
} from 'loopkeeper/transcript';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';

/**
 * fast-check arbitraries shared by every test that needs transcripts. Ids are assigned after
 * generation from counters (`item_0`, `call_0`, ...) so they are always unique, and shrinking
 * never produces a transcript that breaks the protocol by accident.
 */

export interface ValidTranscriptOptions {
  /** Fewest user turns; default 1. */
  readonly minTurns?: number;
  /** Most user turns; default 6. */
  readonly maxTurns?: number;
  /** Most tool-calling assistant steps in one turn; default 3. */
  readonly maxStepsPerTurn?: number;
  /** Most parallel tool calls in one assistant item; default 3. */
  readonly maxParallelCalls?: number;
  /** Allow a leading context item (a compaction summary or host notes); default true. */
  readonly leadingContext?: boolean;
  /** Allow context items between turns; default true. */
  readonly interleavedContext?: boolean;
  /** Occasionally produce multi-kilobyte text and tool output; default true. */
  readonly largeContent?: boolean;
}

export const toolNames = [
  'bash',
  'read_file',
  'search',
  'get_user_details',
  'book_reservation',
] as const;

/** Short text most of the time, sometimes empty, sometimes large (when allowed). */
export function textArbitrary({ large = true }: { large?: boolean } = {}): fc.Arbitrary<string> {
  const small = fc.string({ maxLength: 40 });
  const medium = fc.string({ minLength: 40, maxLength: 400 });
  if (!large) return fc.oneof({ arbitrary: small, weight: 6 }, { arbitrary: medium, weight: 1 });
  const big = fc
    .tuple(fc.string({ minLength: 1, maxLength: 60 }), fc.integer({ min: 20, max: 120 }))
    .map(([chunk, times]) => `${chunk}\n`.repeat(times));
  return fc.oneof(
    { arbitrary: small, weight: 6 },
    { arbitrary: medium, weight: 2 },
    { arbitrary: big, weight: 1 },
  );
}

/** Tool arguments as the raw string a model produced: usually JSON, occasionally broken. */
export const toolArgumentsArbitrary: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)), weight: 2 },
  {
    arbitrary: fc
      .dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 20 }), { maxKeys: 3 })
      .map((value) => JSON.stringify(value)),
    weight: 6,
  },
  { arbitrary: fc.constantFrom('', '{', '{"path": ', 'not json'), weight: 1 },
);

const imagePartArbitrary: fc.Arbitrary<UserContentPart> = fc
  .record(
    {
      url: fc.constantFrom(
        'https://example.com/cat.png',
        'data:image/png;base64,iVBORw0KGgo=',
        'https://example.com/chart.jpg',
      ),
      detail: fc.constantFrom('auto' as const, 'low' as const, 'high' as const),
    },
    { requiredKeys: ['url'], noNullPrototype: true },
  )
  .map((part) => ({ type: 'image' as const, ...part }));

const userContentArbitrary = (large: boolean): fc.Arbitrary<UserItem['content']> =>
  fc.oneof(
    { arbitrary: textArbitrary({ large }), weight: 5 },
    {
      arbitrary: fc.array(
        fc.oneof(
          textArbitrary({ large: false }).map((text): UserContentPart => ({ type: 'text', text })),
          imagePartArbitrary,
        ),
        { minLength: 1, maxLength: 3 },
      ),
      weight: 1,
    },
  );

const reasoningArbitrary: fc.Arbitrary<readonly ReasoningPart[]> = fc.array(
  fc.string({ maxLength: 80 }).map((text) => ({ text })),
  { minLength: 1, maxLength: 2 },
);

/** Tool output; an error result's content starts with `Error:` like the tau-bench transcripts. */
const resultArbitrary = (large: boolean) =>
  fc.oneof(
    {
      arbitrary: textArbitrary({ large })
        .filter((content) => !content.startsWith('Error:'))
        .map((content) => ({ content, isError: false })),
      weight: 5,
    },
    {
      arbitrary: fc
        .string({ maxLength: 60 })
        .map((reason) => ({ content: `Error: ${reason}`, isError: true })),
      weight: 1,
    },
  );

interface CallShape {
  readonly name: string;
  readonly arguments: string;
  readonly result: { readonly content: string; readonly isError: boolean };
  /** Sort key: results of parallel calls may come back in any order. */
  readonly resultOrder: number;
}

interface StepShape {
  readonly text: string | undefined;
  readonly reasoning: readonly ReasoningPart[] | undefined;
  readonly calls: readonly CallShape[];
}

interface TurnShape {
  readonly contextBefore: string | undefined;
  readonly userName: string | undefined;
  readonly user: UserItem['content'];
  readonly steps: readonly StepShape[];
  readonly final: { text: string; reasoning: readonly ReasoningPart[] | undefined } | undefined;
}

/** Protocol-valid transcripts: user turns, tool steps with parallel calls, answers. */
export function validTranscriptArbitrary({
  minTurns = 1,
  maxTurns = 6,
  maxStepsPerTurn = 3,
  maxParallelCalls = 3,
  leadingContext = true,
  interleavedContext = true,
  largeContent = true,
}: ValidTranscriptOptions = {}): fc.Arbitrary<Item[]> {
  const callArbitrary: fc.Arbitrary<CallShape> = fc.record({
    name: fc.constantFrom(...toolNames),
    arguments: toolArgumentsArbitrary,
    result: resultArbitrary(largeContent),
    resultOrder: fc.nat({ max: 100 }),
  });
  const stepArbitrary: fc.Arbitrary<StepShape> = fc.record({
    text: fc.option(fc.string({ maxLength: 60 }), { nil: undefined }),
    reasoning: fc.option(reasoningArbitrary, { nil: undefined, freq: 3 }),
    calls: fc.array(callArbitrary, { minLength: 1, maxLength: maxParallelCalls }),
  });
  const turnArbitrary: fc.Arbitrary<TurnShape> = fc.record({
    contextBefore: interleavedContext
      ? fc.option(fc.string({ maxLength: 80 }), { nil: undefined, freq: 8 })
      : fc.constant(undefined),
    userName: fc.option(fc.constantFrom('alice', 'bob'), { nil: undefined, freq: 6 }),
    user: userContentArbitrary(largeContent),
    steps: fc.array(stepArbitrary, { maxLength: maxStepsPerTurn }),
    final: fc.option(
      fc.record({
        text: textArbitrary({ large: largeContent }),
        reasoning: fc.option(reasoningArbitrary, { nil: undefined, freq: 3 }),
      }),
      { nil: undefined, freq: 8 },
    ),
  });
  const leadingArbitrary = leadingContext
    ? fc.option(
        fc.record({
          name: fc.option(fc.constantFrom(COMPACTION_SUMMARY_NAME, 'memory'), { nil: undefined }),
          text: textArbitrary({ large: largeContent }),
        }),
        { nil: undefined, freq: 3 },
      )
    : fc.constant(undefined);

  return fc
    .record({
      leading: leadingArbitrary,
      turns: fc.array(turnArbitrary, { minLength: minTurns, maxLength: maxTurns }),
    })
    .map(({ leading, turns }) => buildTranscript(leading, turns));
}

function buildTranscript(
  leading: { name: string | undefined; text: string } | undefined,
  turns: readonly TurnShape[],
): Item[] {
  const items: Item[] = [];
  let nextItem = 0;
  let nextCall = 0;
  const itemId = () => `item_${nextItem++}`;
  const context = (text: string, name?: string): ContextItem =>
    name === undefined
      ? { kind: 'context', id: itemId(), text }
      : { kind: 'context', id: itemId(), name, text };

  if (leading !== undefined) items.push(context(leading.text, leading.name));
  for (const turn of turns) {
    if (turn.contextBefore !== undefined) items.push(context(turn.contextBefore, 'memory'));
    const user: UserItem =
      turn.userName === undefined
        ? { kind: 'user', id: itemId(), content: turn.user }
        : { kind: 'user', id: itemId(), content: turn.user, name: turn.userName };
    items.push(user);
    for (const step of turn.steps) {
      const calls = step.calls.map((call) => ({ ...call, id: `call_${nextCall++}` }));
      const assistant: AssistantItem = {
        kind: 'assistant',
        id: itemId(),
        ...(step.text === undefined ? {} : { text: step.text }),
        ...(step.reasoning === undefined ? {} : { reasoning: step.reasoning }),
        toolCalls: calls.map(({ id, name, arguments: raw }) => ({ id, name, arguments: raw })),
      };
      items.push(assistant);
      const answered = [...calls].sort((left, right) => left.resultOrder - right.resultOrder);
      for (const call of answered) {
        const result: ToolResultItem = {
          kind: 'toolResult',
          id: itemId(),
          callId: call.id,
          toolName: call.name,
          content: call.result.content,
          isError: call.result.isError,
        };
        items.push(result);
      }
    }
    if (turn.final !== undefined) {
      const answer: AssistantItem = {
        kind: 'assistant',
        id: itemId(),
        text: turn.final.text,
        ...(turn.final.reasoning === undefined ? {} : { reasoning: turn.final.reasoning }),
      };
      items.push(answer);
    }
  }
  return items;
}

export interface ChatMessagesOptions {
  /** Most user turns; default 5. */
  readonly maxTurns?: number;
  /** Most parallel tool calls in one assistant message; default 3. */
  readonly maxParallelCalls?: number;
}

type TextContentPart = { type: 'text'; text: string };

const textPartsArbitrary: fc.Arbitrary<TextContentPart[]> = fc.array(
  fc.string({ maxLength: 30 }).map((text) => ({ type: 'text' as const, text })),
  { minLength: 1, maxLength: 3 },
);

const stringOrTextParts: fc.Arbitrary<string | TextContentPart[]> = fc.oneof(
  { arbitrary: fc.string({ maxLength: 60 }), weight: 4 },
  { arbitrary: textPartsArbitrary, weight: 1 },
);

const optionalName = fc.option(fc.constantFrom('alice', 'ops', 'planner'), {
  nil: undefined,
  freq: 5,
});

function withName<T extends object>(message: T, name: string | undefined): T {
  return name === undefined ? message : { ...message, name };
}

const userMessageArbitrary: fc.Arbitrary<ChatCompletionMessageParam> = fc
  .record({
    content: fc.oneof(
      { arbitrary: fc.string({ maxLength: 80 }), weight: 4 },
      {
        arbitrary: fc.array(
          fc.oneof(
            fc.string({ maxLength: 30 }).map((text) => ({ type: 'text' as const, text })),
            fc
              .record(
                {
                  url: fc.constantFrom('https://example.com/a.png', 'data:image/png;base64,AAAA'),
                  detail: fc.constantFrom('auto' as const, 'low' as const, 'high' as const),
                },
                { requiredKeys: ['url'], noNullPrototype: true },
              )
              .map((image_url) => ({ type: 'image_url' as const, image_url })),
          ),
          { minLength: 1, maxLength: 3 },
        ),
        weight: 1,
      },
    ),
    name: optionalName,
  })
  .map(({ content, name }) => withName({ role: 'user' as const, content }, name));

const contextMessageArbitrary: fc.Arbitrary<ChatCompletionMessageParam> = fc
  .record({
    role: fc.constantFrom('system' as const, 'developer' as const),
    content: stringOrTextParts,
    name: optionalName,
  })
  .map(({ role, content, name }) => withName({ role, content }, name));

interface ChatStepShape {
  readonly content: 'absent' | 'null' | 'string' | 'parts';
  readonly text: string;
  readonly parts: TextContentPart[];
  readonly reasoning: string | undefined;
  readonly name: string | undefined;
  readonly refusal: 'absent' | 'null';
  readonly calls: readonly {
    name: string;
    arguments: string;
    result: string | TextContentPart[];
    order: number;
  }[];
}

const chatStepArbitrary = (maxParallelCalls: number, withCalls: boolean) =>
  fc.record({
    content: withCalls
      ? fc.constantFrom('absent' as const, 'null' as const, 'string' as const, 'parts' as const)
      : fc.constantFrom('null' as const, 'string' as const, 'parts' as const),
    text: fc.string({ maxLength: 60 }),
    parts: textPartsArbitrary,
    reasoning: fc.option(fc.string({ maxLength: 60 }), { nil: undefined, freq: 3 }),
    name: optionalName,
    refusal: fc.constantFrom('absent' as const, 'null' as const),
    calls: withCalls
      ? fc.array(
          fc.record({
            name: fc.constantFrom(...toolNames),
            arguments: toolArgumentsArbitrary,
            result: fc.oneof(
              { arbitrary: fc.string({ maxLength: 80 }), weight: 4 },
              {
                arbitrary: fc.string({ maxLength: 40 }).map((reason) => `Error: ${reason}`),
                weight: 1,
              },
              { arbitrary: textPartsArbitrary, weight: 1 },
            ),
            order: fc.nat({ max: 100 }),
          }),
          { minLength: 1, maxLength: maxParallelCalls },
        )
      : fc.constant([]),
  });

/**
 * OpenAI Chat Completions message lists in every shape loopkeeper accepts: system and
 * developer messages (string or text parts, with names), user text or parts (text and
 * images), assistant content absent / null / string / text parts, `reasoning_content`,
 * `refusal: null`, parallel tool calls, and tool messages answering each call (in any order
 * inside the block right after the call).
 */
export function chatMessagesArbitrary({
  maxTurns = 5,
  maxParallelCalls = 3,
}: ChatMessagesOptions = {}): fc.Arbitrary<ChatCompletionMessageParam[]> {
  const turnArbitrary = fc.record({
    context: fc.option(contextMessageArbitrary, { nil: undefined, freq: 5 }),
    user: userMessageArbitrary,
    steps: fc.array(chatStepArbitrary(maxParallelCalls, true), { maxLength: 3 }),
    final: fc.option(chatStepArbitrary(maxParallelCalls, false), { nil: undefined, freq: 6 }),
  });
  return fc
    .record({
      leading: fc.array(contextMessageArbitrary, { maxLength: 2 }),
      turns: fc.array(turnArbitrary, { maxLength: maxTurns }),
    })
    .map(({ leading, turns }) => {
      const messages: ChatCompletionMessageParam[] = [...leading];
      let nextCall = 0;
      for (const turn of turns) {
        if (turn.context !== undefined) messages.push(turn.context);
        messages.push(turn.user);
        const steps: ChatStepShape[] = [...turn.steps];
        if (turn.final !== undefined) steps.push(turn.final);
        for (const step of steps) {
          const calls = step.calls.map((call) => ({ ...call, id: `call_${nextCall++}` }));
          messages.push(assistantMessage(step, calls));
          const answered = [...calls].sort((left, right) => left.order - right.order);
          for (const call of answered) {
            messages.push({ role: 'tool', tool_call_id: call.id, content: call.result });
          }
        }
      }
      return messages;
    });
}

function assistantMessage(
  step: ChatStepShape,
  calls: readonly { id: string; name: string; arguments: string }[],
): ChatCompletionMessageParam {
  const content = {
    absent: {},
    null: { content: null },
    string: { content: step.text },
    parts: { content: step.parts },
  }[step.content];
  return {
    role: 'assistant',
    ...content,
    ...(step.name === undefined ? {} : { name: step.name }),
    ...(step.refusal === 'null' ? { refusal: null } : {}),
    ...(step.reasoning === undefined ? {} : { reasoning_content: step.reasoning }),
    ...(calls.length === 0
      ? {}
      : {
          tool_calls: calls.map((call) => ({
            id: call.id,
            type: 'function' as const,
            function: { name: call.name, arguments: call.arguments },
          })),
        }),
  };
}

/** One protocol-breaking edit of a valid transcript and the problem it must cause. */
export interface TranscriptMutation {
  readonly name: string;
  readonly items: Item[];
  readonly expected: {
    readonly kind: ProtocolProblemKind;
    readonly index: number;
    readonly id: string;
  };
}

const resultIndexes = (items: readonly Item[]) =>
  items.flatMap((item, index) => (item.kind === 'toolResult' ? [index] : []));

const ownerIndex = (items: readonly Item[], callId: string) =>
  items.findIndex(
    (item) => item.kind === 'assistant' && item.toolCalls?.some((call) => call.id === callId),
  );

function pick<T>(values: readonly T[], seed: number): T {
  return values[seed % values.length] as T;
}

type Mutator = (items: readonly Item[], seed: number) => TranscriptMutation | undefined;

const dropResult: Mutator = (items, seed) => {
  const indexes = resultIndexes(items);
  if (indexes.length === 0) return undefined;
  const index = pick(indexes, seed);
  const result = items[index] as ToolResultItem;
  const owner = ownerIndex(items, result.callId);
  return {
    name: 'drop a result',
    items: items.filter((_, position) => position !== index),
    expected: { kind: 'unanswered_call', index: owner, id: (items[owner] as Item).id },
  };
};

const duplicateItemId: Mutator = (items, seed) => {
  if (items.length < 2) return undefined;
  const later = 1 + (seed % (items.length - 1));
  const earlier = Math.floor(seed / items.length) % later;
  const id = (items[earlier] as Item).id;
  return {
    name: 'duplicate an item id',
    items: items.map((item, position) => (position === later ? { ...item, id } : item)),
    expected: { kind: 'duplicate_item_id', index: later, id },
  };
};

const duplicateCallId: Mutator = (items, seed) => {
  const callers = items.flatMap((item, index) =>
    item.kind === 'assistant' && item.toolCalls !== undefined ? [index] : [],
  );
  if (callers.length < 2) return undefined;
  const later = pick(callers.slice(1), seed);
  const first = items[callers[0] as number];
  const target = items[later];
  if (first?.kind !== 'assistant' || target?.kind !== 'assistant') return undefined;
  const reused = first.toolCalls?.[0]?.id as string;
  const replaced = target.toolCalls?.[0]?.id as string;
  return {
    name: 'duplicate a tool call id',
    items: items.map((item, position): Item => {
      if (position === later && item.kind === 'assistant' && item.toolCalls !== undefined) {
        return {
          ...item,
          toolCalls: item.toolCalls.map((call, callIndex) =>
            callIndex === 0 ? { ...call, id: reused } : call,
          ),
        };
      }
      if (item.kind === 'toolResult' && item.callId === replaced)
        return { ...item, callId: reused };
      return item;
    }),
    expected: { kind: 'duplicate_call_id', index: later, id: target.id },
  };
};

const moveResultBeforeCall: Mutator = (items, seed) => {
  const indexes = resultIndexes(items);
  if (indexes.length === 0) return undefined;
  const index = pick(indexes, seed);
  const result = items[index] as ToolResultItem;
  const owner = ownerIndex(items, result.callId);
  const target = Math.floor(seed / 7) % (owner + 1);
  const without = items.filter((_, position) => position !== index);
  return {
    name: 'move a result before its call',
    items: [...without.slice(0, target), result, ...without.slice(target)],
    expected: { kind: 'result_out_of_order', index: target, id: result.id },
  };
};

const orphanResult: Mutator = (items, seed) => {
  const index = seed % (items.length + 1);
  const orphan: ToolResultItem = {
    kind: 'toolResult',
    id: 'orphan_item',
    callId: 'call_nobody_made',
    toolName: 'bash',
    content: 'output',
    isError: false,
  };
  return {
    name: 'orphan a result',
    items: [...items.slice(0, index), orphan, ...items.slice(index)],
    expected: { kind: 'orphan_result', index, id: orphan.id },
  };
};

const duplicateResult: Mutator = (items, seed) => {
  const indexes = resultIndexes(items);
  if (indexes.length === 0) return undefined;
  const index = pick(indexes, seed);
  const copy = { ...(items[index] as ToolResultItem), id: 'copied_result' };
  return {
    name: 'answer a call twice',
    items: [...items.slice(0, index + 1), copy, ...items.slice(index + 1)],
    expected: { kind: 'duplicate_result', index: index + 1, id: copy.id },
  };
};

const contextInsideBlock: Mutator = (items, seed) => {
  const indexes = resultIndexes(items).filter((index) => items[index - 1]?.kind === 'assistant');
  if (indexes.length === 0) return undefined;
  const index = pick(indexes, seed);
  const note: Item = { kind: 'context', id: 'note_in_block', text: 'a note' };
  return {
    name: 'put a context item between a call and its results',
    items: [...items.slice(0, index), note, ...items.slice(index)],
    expected: {
      kind: 'result_out_of_order',
      index: index + 1,
      id: (items[index] as Item).id,
    },
  };
};

const renameResultTool: Mutator = (items, seed) => {
  const indexes = resultIndexes(items);
  if (indexes.length === 0) return undefined;
  const index = pick(indexes, seed);
  const result = items[index] as ToolResultItem;
  return {
    name: 'name the wrong tool on a result',
    items: items.map((item, position) =>
      position === index ? { ...result, toolName: `${result.toolName}_other` } : item,
    ),
    expected: { kind: 'tool_name_mismatch', index, id: result.id },
  };
};

const mutators: readonly Mutator[] = [
  dropResult,
  duplicateItemId,
  duplicateCallId,
  moveResultBeforeCall,
  orphanResult,
  duplicateResult,
  contextInsideBlock,
  renameResultTool,
];

/**
 * A valid transcript broken by exactly one protocol mutation (drop a result, duplicate an item
 * or call id, move a result before its call, orphan a result, answer a call twice, put a
 * context item inside a result block, misname a result's tool), with the problem it must cause.
 */
export const brokenTranscriptArbitrary: fc.Arbitrary<TranscriptMutation> = fc
  .tuple(
    validTranscriptArbitrary({ minTurns: 2, maxTurns: 4, largeContent: false }),
    fc.constantFrom(...mutators),
    fc.nat({ max: 1_000_000 }),
  )
  .map(([items, mutate, seed]) => mutate(items, seed))
  .filter((mutation): mutation is TranscriptMutation => mutation !== undefined);
