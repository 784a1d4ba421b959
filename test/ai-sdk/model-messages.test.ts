import type { ModelMessage } from 'ai';
import fc from 'fast-check';
import { ProtocolError } from 'loopkeeper';
import { fromModelMessages, toModelMessages } from 'loopkeeper/ai-sdk';
import { describe, expect, it } from 'vitest';
import { checkItem } from '../../src/transcript/check-item.js';

const json = fc
  .jsonValue({ maxDepth: 2 })
  .map((value) => JSON.parse(JSON.stringify(value)) as unknown);
const name = fc.string({ minLength: 1, maxLength: 8 });
const providerOptions = fc.dictionary(name, fc.dictionary(name, json, { maxKeys: 2 }), {
  minKeys: 1,
  maxKeys: 2,
});
const withOptions = <T extends object>(part: fc.Arbitrary<T>) =>
  fc
    .tuple(part, fc.option(providerOptions, { nil: undefined }))
    .map(([value, options]) =>
      options === undefined ? value : { ...value, providerOptions: options },
    );
const bytes = fc.uint8Array({ maxLength: 12 });
const data = fc.oneof(
  bytes,
  bytes.map((array) => Buffer.from(array)),
  bytes.map((array) => array.slice().buffer),
  fc.base64String({ maxLength: 16 }),
  fc.webUrl(),
);
const text = fc.string({ maxLength: 30 });
const textPart = withOptions(fc.record({ type: fc.constant('text' as const), text }));
const imagePart = withOptions(
  fc.record(
    {
      type: fc.constant('image' as const),
      image: data,
      mediaType: fc.constantFrom('image/png', 'image/jpeg'),
    },
    { requiredKeys: ['type', 'image'] },
  ),
);
const filePart = withOptions(
  fc.record(
    {
      type: fc.constant('file' as const),
      data,
      mediaType: fc.constantFrom('application/pdf', 'text/plain'),
      filename: name,
    },
    { requiredKeys: ['type', 'data', 'mediaType'] },
  ),
);
const callId = fc.uuid();
const toolCallPart = withOptions(
  fc.record({
    type: fc.constant('tool-call' as const),
    toolCallId: callId,
    toolName: name,
    input: fc.oneof(
      json.filter((value) => typeof value !== 'string'),
      text,
    ),
  }),
);
const output = fc.oneof(
  withOptions(
    fc.record({ type: fc.constantFrom('text' as const, 'error-text' as const), value: text }),
  ),
  withOptions(
    fc.record({ type: fc.constantFrom('json' as const, 'error-json' as const), value: json }),
  ),
  withOptions(
    fc.record(
      { type: fc.constant('execution-denied' as const), reason: text },
      { requiredKeys: ['type'] },
    ),
  ),
  withOptions(
    fc.record({
      type: fc.constant('content' as const),
      value: fc.array(
        fc.oneof(
          withOptions(fc.record({ type: fc.constant('text' as const), text })),
          fc.record({
            type: fc.constant('media' as const),
            data: fc.base64String(),
            mediaType: name,
          }),
          withOptions(fc.record({ type: fc.constant('image-url' as const), url: fc.webUrl() })),
        ),
        { maxLength: 3 },
      ),
    }),
  ),
);
const toolResultPart = withOptions(
  fc.record({
    type: fc.constant('tool-result' as const),
    toolCallId: callId,
    toolName: name,
    output,
  }),
);
const providerCall = fc.tuple(toolCallPart, output).map(([call, result]) => [
  { ...call, providerExecuted: true },
  {
    type: 'tool-result' as const,
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    output: result,
  },
]);
const reasoningPart = withOptions(fc.record({ type: fc.constant('reasoning' as const), text }));
const approvalRequest = fc.record({
  type: fc.constant('tool-approval-request' as const),
  approvalId: name,
  toolCallId: callId,
});
const approvalResponse = fc.record(
  {
    type: fc.constant('tool-approval-response' as const),
    approvalId: name,
    approved: fc.boolean(),
    reason: text,
  },
  { requiredKeys: ['type', 'approvalId', 'approved'] },
);
const message = (role: string, content: fc.Arbitrary<unknown>) =>
  withOptions(fc.record({ role: fc.constant(role), content }));

const modelMessage: fc.Arbitrary<ModelMessage> = fc.oneof(
  message('system', text),
  message(
    'user',
    fc.oneof(text, fc.array(fc.oneof(textPart, imagePart, filePart), { maxLength: 4 })),
  ),
  message(
    'assistant',
    fc.oneof(
      text,
      fc
        .array(
          fc.oneof(
            textPart.map((part) => [part]),
            reasoningPart.map((part) => [part]),
            toolCallPart.map((part) => [part]),
            filePart.map((part) => [part]),
            approvalRequest.map((part) => [part]),
            providerCall,
          ),
          { maxLength: 5 },
        )
        .map((groups) => groups.flat()),
    ),
  ),
  message(
    'tool',
    fc
      .tuple(
        fc.array(approvalResponse, { maxLength: 1 }),
        fc.array(toolResultPart, { minLength: 1, maxLength: 3 }),
        fc.array(approvalResponse, { maxLength: 1 }),
      )
      .map(([before, results, after]) => [...before, ...results, ...after]),
  ),
) as fc.Arbitrary<ModelMessage>;

/** URLs and binary data compared by what they hold, with their JavaScript types. */
function comparable(value: unknown): unknown {
  if (value instanceof URL) return { url: value.href };
  if (Buffer.isBuffer(value)) return { buffer: value.toString('base64') };
  if (value instanceof Uint8Array) return { bytes: Buffer.from(value).toString('base64') };
  if (value instanceof ArrayBuffer) return { arrayBuffer: Buffer.from(value).toString('base64') };
  if (Array.isArray(value)) return value.map(comparable);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, entry]) => [key, comparable(entry)]),
    );
  }
  return value;
}

describe('fromModelMessages / toModelMessages', () => {
  it('round-trips any ModelMessage list unchanged, also through the JSON of a session log', () => {
    fc.assert(
      fc.property(fc.array(modelMessage, { maxLength: 6 }), (messages) => {
        const items = fromModelMessages({ messages });
        expect(items.flatMap((item, index) => checkItem(item, index))).toEqual([]);
        expect(comparable(toModelMessages({ items }))).toEqual(comparable(messages));
        const stored = JSON.parse(JSON.stringify(items));
        expect(comparable(toModelMessages({ items: stored }))).toEqual(comparable(messages));
      }),
      { numRuns: 120 },
    );
  });
});

describe('fromModelMessages refuses what it cannot represent', () => {
  it('names a tool message without a result', () => {
    const messages = [
      { role: 'user', content: 'Delete it' },
      {
        role: 'tool',
        content: [{ type: 'tool-approval-response', approvalId: 'a1', approved: true }],
      },
    ] as ModelMessage[];
    expect(() => fromModelMessages({ messages })).toThrow(ProtocolError);
    try {
      fromModelMessages({ messages });
    } catch (error) {
      expect((error as ProtocolError).problems).toEqual([
        expect.objectContaining({ index: 1, kind: 'unsupported_message' }),
      ]);
    }
  });

  it('renders a pruned tool result plainly and keeps the untouched parts as they were', () => {
    const messages: ModelMessage[] = [
      {
        role: 'assistant',
        content: [
          {
            type: 'reasoning',
            text: 'Look first.',
            providerOptions: { anthropic: { signature: 's' } },
          },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'a' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'read',
            output: { type: 'json', value: { big: 'x'.repeat(50) } },
          },
        ],
      },
    ];
    const [assistant, result] = fromModelMessages({ messages });
    if (assistant?.kind !== 'assistant' || result?.kind !== 'toolResult') throw new Error('shape');
    // Reasoning's provider options are the part's own provider data, as every adapter keeps it.
    expect(assistant.reasoning).toEqual([
      { text: 'Look first.', providerData: { anthropic: { signature: 's' } } },
    ]);
    const { reasoning: _dropped, ...withoutReasoning } = assistant;
    const rendered = toModelMessages({
      items: [
        { ...withoutReasoning, id: 'a1-copy' },
        { ...result, id: 'r1-copy', content: '[output pruned]' },
      ],
    });
    expect(rendered).toEqual([
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'a' } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'read',
            output: { type: 'text', value: '[output pruned]' },
          },
        ],
      },
    ]);
  });
});
