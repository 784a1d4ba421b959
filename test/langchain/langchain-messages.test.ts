import {
  AIMessage,
  type AIMessageFields,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import fc from 'fast-check';
import { ProtocolError } from 'loopkeeper';
import { fromLangChainMessages, toLangChainMessages } from 'loopkeeper/langchain';
import { describe, expect, it } from 'vitest';
import { checkItem } from '../../src/transcript/check-item.js';

const json = fc
  .jsonValue({ maxDepth: 2 })
  .map((value) => JSON.parse(JSON.stringify(value)) as unknown);
const text = fc.string({ maxLength: 30 });
const name = fc.string({ minLength: 1, maxLength: 8 });
const id = fc.option(fc.uuid(), { nil: undefined });
const metadata = fc.dictionary(name, json, { maxKeys: 2 });

const human = fc
  .record({
    content: fc.oneof(
      text,
      fc.array(
        fc.oneof(
          fc.record({ type: fc.constant('text'), text }),
          fc.record({ type: fc.constant('image_url'), image_url: fc.record({ url: fc.webUrl() }) }),
        ),
        { maxLength: 3 },
      ),
    ),
    id,
  })
  .map(
    ({ content, id: messageId }) =>
      new HumanMessage({
        content: content as never,
        ...(messageId === undefined ? {} : { id: messageId }),
      }),
  );
const ai = fc
  .record({
    content: fc.oneof(
      text,
      fc.array(
        fc.oneof(
          fc.record({ type: fc.constant('text'), text }),
          fc.record({ type: fc.constant('thinking'), thinking: text, signature: name }),
        ),
        { maxLength: 3 },
      ),
    ),
    calls: fc.array(
      fc.record({ id: fc.uuid(), name, args: fc.dictionary(name, json, { maxKeys: 2 }) }),
      { maxLength: 2 },
    ),
    response_metadata: metadata,
    usage: fc.option(
      fc.record({ input_tokens: fc.nat(), output_tokens: fc.nat(), total_tokens: fc.nat() }),
      { nil: undefined },
    ),
    id,
  })
  .map(
    ({ content, calls, response_metadata, usage, id: messageId }) =>
      new AIMessage({
        content: content as never,
        tool_calls: calls.map((call) => ({ ...call, type: 'tool_call' as const })),
        response_metadata,
        ...(usage === undefined ? {} : { usage_metadata: usage }),
        ...(messageId === undefined ? {} : { id: messageId }),
        // LangChain's inferred field types say usage_metadata is undefined under this compiler.
      } as unknown as AIMessageFields),
  );
const toolMessage = fc
  .record({
    content: text,
    tool_call_id: fc.uuid(),
    name,
    status: fc.constantFrom('success' as const, 'error' as const),
    artifact: fc.option(json, { nil: undefined }),
    id,
  })
  .map(
    ({ id: messageId, artifact, ...fields }) =>
      new ToolMessage({
        ...fields,
        ...(artifact === undefined ? {} : { artifact }),
        ...(messageId === undefined ? {} : { id: messageId }),
      }),
  );
const system = text.map((content) => new SystemMessage(content));
const message: fc.Arbitrary<BaseMessage> = fc.oneof(human, ai, toolMessage, system);

function plain(messages: readonly BaseMessage[]): unknown {
  return messages.map((entry) => ({
    type: entry.getType(),
    ...JSON.parse(JSON.stringify(entry.toDict())),
  }));
}

describe('fromLangChainMessages / toLangChainMessages', () => {
  it('round-trips any list of human, AI, tool and system messages unchanged, also through JSON', () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 6 }), (messages) => {
        const items = fromLangChainMessages({ messages });
        expect(items.flatMap((item, index) => checkItem(item, index))).toEqual([]);
        const back = toLangChainMessages({ items });
        expect(back.map((entry) => entry.constructor.name)).toEqual(
          messages.map((entry) => entry.constructor.name),
        );
        expect(plain(back)).toEqual(plain(messages));
        const stored = JSON.parse(JSON.stringify(items));
        expect(plain(toLangChainMessages({ items: stored }))).toEqual(plain(messages));
      }),
      { numRuns: 100 },
    );
  });

  it('keeps a pruned tool message its ids and metadata, with the new content', () => {
    const messages = [
      new AIMessage({
        content: '',
        tool_calls: [{ id: 'c1', name: 'read', args: { path: 'a' }, type: 'tool_call' }],
      }),
      new ToolMessage({
        content: 'x'.repeat(40),
        tool_call_id: 'c1',
        name: 'read',
        id: 'tm1',
        artifact: { rows: 3 },
      }),
    ];
    const [call, result] = fromLangChainMessages({ messages });
    if (call === undefined || result?.kind !== 'toolResult') throw new Error('shape');
    const [, pruned] = toLangChainMessages({
      items: [call, { ...result, id: 'copy', content: '[pruned]' }],
    });
    expect(pruned).toBeInstanceOf(ToolMessage);
    expect(pruned?.toDict().data).toMatchObject({
      content: '[pruned]',
      id: 'tm1',
      tool_call_id: 'c1',
      artifact: { rows: 3 },
    });
  });

  it('refuses a tool call without an id', () => {
    const messages = [
      new AIMessage({ content: '', tool_calls: [{ name: 'read', args: {}, type: 'tool_call' }] }),
    ];
    expect(() => fromLangChainMessages({ messages })).toThrow(ProtocolError);
  });
});
