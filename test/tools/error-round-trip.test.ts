import { defineTool, fromChatMessages, type Item, toChatMessages } from 'loopkeeper';
import { executeToolCalls } from 'loopkeeper/tools';
import { describe, expect, it } from 'vitest';

describe('executeToolCalls error results', () => {
  it('keep isError through a round trip as Chat Completions messages', async () => {
    const boom = defineTool({
      name: 'boom',
      description: 'Always fails.',
      parameters: { type: 'object' },
      execute: () => {
        throw new Error('disk full');
      },
    });
    const calls = [
      { id: 'call_1', name: 'boom', arguments: '{}' },
      { id: 'call_2', name: 'missing', arguments: '{}' },
      { id: 'call_3', name: 'boom', arguments: '{not json' },
    ];
    const results = await executeToolCalls({ tools: [boom], calls });
    const items: Item[] = [
      { kind: 'user', id: 'user_1', content: 'go' },
      { kind: 'assistant', id: 'assistant_1', toolCalls: calls },
      ...results,
    ];
    const restored = fromChatMessages(toChatMessages(items));
    expect(results.every((result) => result.isError)).toBe(true);
    expect(
      restored.filter((item) => item.kind === 'toolResult').map((item) => item.isError),
    ).toEqual([true, true, true]);
  });
});
