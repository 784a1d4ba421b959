import fc from 'fast-check';
import cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import o200k from 'gpt-tokenizer/encoding/o200k_base';
import gpt4o from 'gpt-tokenizer/model/gpt-4o';
import {
  COMPACTION_SUMMARY_NAME,
  ConfigError,
  createTokenCounter,
  type Item,
  ProtocolError,
  toChatMessages,
} from 'loopkeeper';
import {
  countRequest,
  countTokens,
  IMAGE_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
  NAME_OVERHEAD_TOKENS,
  REPLY_PRIMING_TOKENS,
  TOOL_CALL_OVERHEAD_TOKENS,
} from 'loopkeeper/tokens';
import type { ToolResultItem } from 'loopkeeper/transcript';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { validTranscriptArbitrary } from '../support/arbitraries.js';

const plain = { disallowedSpecial: new Set<string>() };
const exact = (text: string) => o200k.encode(text, plain).length;

const toolResult = (id: string, content: string): ToolResultItem => ({
  kind: 'toolResult',
  id,
  callId: `call_${id}`,
  toolName: 'bash',
  content,
  isError: false,
});

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('createTokenCounter', () => {
  it('defaults to o200k_base and loads cl100k_base on request', async () => {
    const o200kCounter = await createTokenCounter();
    const cl100kCounter = await createTokenCounter({ encoding: 'cl100k_base' });
    const text = 'Résumé of naïve 東京 tokens: 12345 🚀';
    expect(o200kCounter.encoding).toBe('o200k_base');
    expect(cl100kCounter.encoding).toBe('cl100k_base');
    expect(cl100kCounter.countText(text)).toBe(cl100k.encode(text).length);
    expect(o200kCounter.countText(text)).toBe(o200k.encode(text).length);
    expect(cl100kCounter.countText(text)).not.toBe(o200kCounter.countText(text));
  });

  it('refuses an unknown encoding and a bad cache size with ConfigError', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: deliberately wrong input from an untyped host
    await expect(createTokenCounter({ encoding: 'p50k_base' as any })).rejects.toSatisfy(
      (error) => ConfigError.isInstance(error) && /p50k_base/.test((error as Error).message),
    );
    await expect(createTokenCounter({ maxCachedItems: 0 })).rejects.toSatisfy(
      ConfigError.isInstance,
    );
  });
});

describe('countText', () => {
  it('property: equals the length of gpt-tokenizer encode for any text', async () => {
    const counter = await createTokenCounter();
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (text) => {
        expect(counter.countText(text)).toBe(exact(text));
      }),
      { numRuns: 200 },
    );
  });

  it('counts special-token text as plain text instead of throwing', async () => {
    const counter = await createTokenCounter();
    for (const text of [
      '<|endoftext|>',
      'a <|im_start|>system<|im_sep|>x<|im_end|>',
      '<|endofprompt|>',
    ]) {
      expect(() => o200k.encode(text)).toThrow();
      expect(counter.countText(text)).toBe(exact(text));
      // Plain text never collapses into the single special token.
      expect(counter.countText(text)).toBeGreaterThan(1);
    }
    const item = toolResult('special', 'output: <|endoftext|><|fim_prefix|>');
    expect(counter.countItem(item)).toBe(
      MESSAGE_OVERHEAD_TOKENS + exact('tool') + exact(item.content),
    );
  });

  it('refuses a non-string with ConfigError', async () => {
    const counter = await createTokenCounter();
    // biome-ignore lint/suspicious/noExplicitAny: deliberately wrong input from an untyped host
    expect(() => counter.countText(42 as any)).toThrow(ConfigError);
  });
});

describe('countItem', () => {
  it('prices each item kind as its chat message', async () => {
    const counter = await createTokenCounter();
    const message = (role: string) => MESSAGE_OVERHEAD_TOKENS + exact(role);
    expect(counter.countItem({ kind: 'user', id: 'u1', content: 'hello there' })).toBe(
      message('user') + exact('hello there'),
    );
    expect(counter.countItem({ kind: 'user', id: 'u2', content: 'hi', name: 'alice' })).toBe(
      message('user') + exact('hi') + exact('alice') + NAME_OVERHEAD_TOKENS,
    );
    expect(counter.countItem({ kind: 'context', id: 'c1', text: 'notes', name: 'memory' })).toBe(
      message('system') + exact('notes') + exact('memory') + NAME_OVERHEAD_TOKENS,
    );
    // A summary is sent as fenced user data, without its tag (see toChatMessages).
    const summary = {
      kind: 'context',
      id: 'c2',
      text: 'summary',
      name: COMPACTION_SUMMARY_NAME,
    } as const;
    const [sent] = toChatMessages([summary]);
    expect(counter.countItem(summary)).toBe(message('user') + exact(String(sent?.content)));
    expect(counter.countItem(toolResult('t1', '{"ok":true}'))).toBe(
      message('tool') + exact('{"ok":true}'),
    );
  });

  it('adds name, arguments and framing per tool call, and the reasoning text', async () => {
    const counter = await createTokenCounter();
    const calls = [
      { id: 'call_a', name: 'read_file', arguments: '{"path":"src/index.ts"}' },
      { id: 'call_b', name: 'bash', arguments: '{"command":"ls -la"}' },
    ];
    const callTokens = calls.reduce(
      (sum, call) => sum + TOOL_CALL_OVERHEAD_TOKENS + exact(call.name) + exact(call.arguments),
      0,
    );
    expect(
      counter.countItem({
        kind: 'assistant',
        id: 'a1',
        text: 'Reading both.',
        reasoning: [{ text: 'First the file.' }, { text: 'Then the listing.' }],
        toolCalls: calls,
      }),
    ).toBe(
      MESSAGE_OVERHEAD_TOKENS +
        exact('assistant') +
        exact('Reading both.') +
        exact('First the file.\n\nThen the listing.') +
        callTokens,
    );
    expect(counter.countItem({ kind: 'assistant', id: 'a2' })).toBe(
      MESSAGE_OVERHEAD_TOKENS + exact('assistant'),
    );
  });

  it('gives image parts the documented fixed estimate and never counts their URL', async () => {
    const counter = await createTokenCounter();
    const dataUrl = `data:image/png;base64,${'iVBORw0KGgo'.repeat(10_000)}`;
    expect(
      counter.countItem({
        kind: 'user',
        id: 'img',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', url: dataUrl, detail: 'low' },
          { type: 'image', url: 'https://example.com/a.png' },
        ],
      }),
    ).toBe(
      MESSAGE_OVERHEAD_TOKENS +
        exact('user') +
        exact('What is this?') +
        IMAGE_TOKENS.low +
        IMAGE_TOKENS.auto,
    );
  });

  it('refuses non-items, unknown kinds and non-string fields with ProtocolError', async () => {
    const counter = await createTokenCounter();
    const bad: unknown[] = [
      null,
      'text',
      { id: 'x', kind: 'robot', text: 'hi' },
      { kind: 'user', content: 'no id' },
      { kind: 'toolResult', id: 'r', callId: 'c', toolName: 't', content: 7, isError: false },
      {
        kind: 'assistant',
        id: 'a',
        toolCalls: [{ id: 'c', name: 'bash', arguments: { command: 'ls' } }],
      },
      { kind: 'assistant', id: 'b', reasoning: 'not parts' },
      { kind: 'user', id: 'u', content: [{ type: 'text' }] },
    ];
    for (const item of bad) {
      const error = thrownBy(() => counter.countItem(item as Item));
      expect(ProtocolError.isInstance(error), JSON.stringify(item)).toBe(true);
      expect((error as ProtocolError).problems[0]?.kind).toBe('invalid_item');
    }
    const arguments_ = bad[5];
    expect(() => counter.countItem(arguments_ as Item)).toThrow(
      /cannot count tokens: toolCalls\[0\]\.arguments must be a string \(got an object\)/,
    );
  });

  it('counts a 10 MB tool output without crashing, within 0.1% of the exact count', async () => {
    const counter = await createTokenCounter();
    const lines = [
      '2026-11-03T12:00:01.123Z INFO  [worker-7] GET /api/v1/items?page=3 status=200 duration=12ms\n',
      '{"id": 4211, "name": "widget", "tags": ["blue", "large"], "price": 19.99}\n',
      '    at Object.<anonymous> (/srv/app/node_modules/pkg/index.js:120:15)\n',
      'The quick brown fox jumps over the lazy dog, again and again.\n',
    ];
    let content = '';
    for (let index = 0; content.length < 10_000_000; index += 1) {
      content += `${lines[index % lines.length]}${index}\n`;
    }
    const tokens = counter.countItem(toolResult('huge', content));
    const reference = MESSAGE_OVERHEAD_TOKENS + exact('tool') + exact(content);
    expect(Math.abs(tokens - reference) / reference).toBeLessThan(0.001);
  });
});

describe('count', () => {
  it('is the sum of countItem, so counts of slices add up', async () => {
    const counter = await createTokenCounter();
    const items: Item[] = [
      { kind: 'context', id: 'c', text: 'Be brief.' },
      { kind: 'user', id: 'u', content: 'List files' },
      {
        kind: 'assistant',
        id: 'a',
        toolCalls: [{ id: 'k', name: 'bash', arguments: '{"command":"ls"}' }],
      },
      toolResult('r', 'README.md\nsrc\n'),
    ];
    const total = counter.count(items);
    expect(total).toBe(items.reduce((sum, item) => sum + counter.countItem(item), 0));
    expect(total).toBe(counter.count(items.slice(0, 2)) + counter.count(items.slice(2)));
    expect(counter.count([])).toBe(0);
  });

  it('does not call the encoder again for items it has counted (2,000-item session)', async () => {
    const counter = await createTokenCounter();
    const items = Array.from({ length: 2_000 }, (_, index) =>
      toolResult(`cached_${index}`, `line ${index}: ${'some output '.repeat(index % 7)}`),
    );
    const first = counter.count(items);
    const encoder = vi.spyOn(o200k, 'countTokens');
    expect(counter.count(items)).toBe(first);
    expect(encoder).not.toHaveBeenCalled();
    // Only the new item reaches the encoder.
    counter.count([...items, toolResult('cached_new', 'fresh output')]);
    expect(encoder).toHaveBeenCalledTimes(1);
  });

  it('recounts an id whose content was replaced, and evicts the least recently used', async () => {
    const counter = await createTokenCounter({ maxCachedItems: 2 });
    const original = toolResult('same', 'a long original output '.repeat(50));
    const placeholder = toolResult('same', '[pruned]');
    expect(counter.countItem(original)).toBeGreaterThan(counter.countItem(placeholder));
    expect(counter.countItem(placeholder)).toBe(
      MESSAGE_OVERHEAD_TOKENS + exact('tool') + exact('[pruned]'),
    );

    const encoder = vi.spyOn(o200k, 'countTokens');
    counter.count([toolResult('one', 'x'), toolResult('two', 'y')]);
    expect(encoder).toHaveBeenCalledTimes(2);
    counter.countItem(toolResult('two', 'y'));
    expect(encoder).toHaveBeenCalledTimes(2);
    counter.countItem(toolResult('three', 'z')); // evicts 'one', the least recently used
    counter.countItem(toolResult('one', 'x'));
    expect(encoder).toHaveBeenCalledTimes(4);
  });

  it('keeps the count of an item object it has seen even after the id cache evicted its id', async () => {
    const counter = await createTokenCounter({ maxCachedItems: 1 });
    const items = [toolResult('first', 'one output'), toolResult('second', 'another output')];
    const total = counter.count(items);
    const encoder = vi.spyOn(o200k, 'countTokens');
    expect(counter.count(items)).toBe(total);
    expect(encoder).not.toHaveBeenCalled();
    // A different object under a seen id goes through the id cache, and is still exact.
    expect(counter.countItem(toolResult('first', 'one output'))).toBe(
      counter.countItem(items[0] as Item),
    );
  });

  it('refuses a non-array with ConfigError', async () => {
    const counter = await createTokenCounter();
    // biome-ignore lint/suspicious/noExplicitAny: deliberately wrong input from an untyped host
    expect(() => counter.count('items' as any)).toThrow(ConfigError);
  });
});

describe('countTokens', () => {
  it('totals items with the chosen encoding', async () => {
    const items: Item[] = [{ kind: 'user', id: 'u', content: 'Count me, please.' }];
    expect(await countTokens(items)).toBe(
      MESSAGE_OVERHEAD_TOKENS + exact('user') + exact('Count me, please.'),
    );
    expect(await countTokens(items, { encoding: 'cl100k_base' })).toBe(
      MESSAGE_OVERHEAD_TOKENS +
        cl100k.encode('user').length +
        cl100k.encode('Count me, please.').length,
    );
  });
});

describe('countRequest', () => {
  it('equals gpt-tokenizer encodeChat for messages without tool calls', async () => {
    const counter = await createTokenCounter();
    const items: Item[] = [
      { kind: 'context', id: 'c', text: 'Earlier: the user asked for a summary.' },
      { kind: 'user', id: 'u', content: 'Summarize the README.' },
      { kind: 'assistant', id: 'a', text: 'It explains install and usage.' },
    ];
    const instructions = 'You are a careful assistant.';
    const reference = o200k.encodeChat(
      [
        { role: 'system', content: instructions },
        { role: 'system', content: 'Earlier: the user asked for a summary.' },
        { role: 'user', content: 'Summarize the README.' },
        { role: 'assistant', content: 'It explains install and usage.' },
      ],
      'gpt-4o',
    ).length;
    expect(countRequest({ counter, items, instructions })).toBe(reference);
    expect(countRequest({ counter, items })).toBe(counter.count(items) + REPLY_PRIMING_TOKENS);
  });

  it('property: equals gpt-tokenizer countChatCompletionTokens for any valid transcript', async () => {
    // Its function-call-aware count takes one call per message, string content and no reasoning.
    const transcripts = validTranscriptArbitrary({ maxParallelCalls: 1 }).map((items) =>
      items.map((item): Item => {
        if (item.kind === 'assistant') {
          const { reasoning: _dropped, ...rest } = item;
          return rest;
        }
        if (item.kind === 'user' && typeof item.content !== 'string') {
          const text = item.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
          return { ...item, content: text };
        }
        return item;
      }),
    );
    await fc.assert(
      fc.asyncProperty(transcripts, async (items) => {
        const counter = await createTokenCounter();
        const messages = toChatMessages(items).map((message) => ({
          role: message.role,
          content: typeof message.content === 'string' ? message.content : '',
          ...('name' in message && message.name !== undefined ? { name: message.name } : {}),
          ...('tool_calls' in message && message.tool_calls?.[0]?.type === 'function'
            ? { function_call: message.tool_calls[0].function }
            : {}),
        }));
        expect(countRequest({ counter, items })).toBe(
          gpt4o.countChatCompletionTokens?.({ messages }),
        );
      }),
      { numRuns: 100 },
    );
  });
});
