import {
  createTokenCounter,
  dropReasoning,
  type Item,
  pipeline,
  pruneToolResults,
} from 'loopkeeper';
import { defaultToolOutputPlaceholder } from 'loopkeeper/compaction';
import type { TokenCounter } from 'loopkeeper/tokens';
import type { AssistantItem, ToolResultItem } from 'loopkeeper/transcript';
import { describe, expect, it } from 'vitest';
import { replacedItemId } from '../../src/compaction/helpers/derived-item.js';
import { pruneToolOutput } from '../../src/compaction/helpers/tool-output-placeholder.js';

const output = (id: string, content: string): ToolResultItem => ({
  kind: 'toolResult',
  id,
  callId: `call_${id}`,
  toolName: 'bash',
  content,
  isError: false,
});

const big = `Traceback in src/app/main.py line 3\nError: could not open config.yaml\n${'x = compute(y)\n'.repeat(300)}`;

function session(): Item[] {
  const calls = ['a', 'b', 'c'];
  return [
    { kind: 'user', id: 'u1', content: 'fix it' },
    ...calls.flatMap((call): Item[] => [
      {
        kind: 'assistant',
        id: `s${call}`,
        reasoning: [{ text: `thinking about ${call} `.repeat(20) }],
        toolCalls: [{ id: `call_${call}`, name: 'bash', arguments: '{"command":"make"}' }],
      } satisfies AssistantItem,
      output(call, big),
    ]),
    { kind: 'user', id: 'u2', content: 'and now?' },
  ];
}

const structural = pipeline(dropReasoning(), pruneToolResults({ protectRecentTokens: 0 }));
const pass = (transcript: readonly Item[], tokens: TokenCounter) =>
  structural.apply(
    { transcript, reason: 'threshold', budget: { maxTokens: 10, targetTokens: 0 } },
    { tokens, signal: new AbortController().signal },
  );

describe('derived copies (one per original item)', () => {
  it('a second pass over the same items returns the very copies of the first, with their count cached', async () => {
    const tokens = await createTokenCounter();
    const items = session();
    const first = await pass(items, tokens);
    const second = await pass(items, tokens);
    expect(second.transcript).toEqual(first.transcript);
    for (const [index, item] of first.transcript.entries()) {
      expect(second.transcript[index]).toBe(item);
    }
    expect(first.transcript.filter((item) => replacedItemId(item) !== undefined)).toHaveLength(6);
    // Another counter (a loop resumed in the same process) gets the same copies, counted exactly.
    const other = await createTokenCounter();
    const third = await pass(items, other);
    expect(third.transcript).toEqual(first.transcript);
    expect(third.metadata['tokensAfter']).toBe(first.metadata['tokensAfter']);
  });

  it('a reused placeholder is the one written fresh for the same output and size', async () => {
    const tokens = await createTokenCounter();
    const item = output('d', big);
    const cached = pruneToolOutput(item, defaultToolOutputPlaceholder, tokens);
    const again = pruneToolOutput(item, defaultToolOutputPlaceholder, tokens);
    expect(again?.item).toBe(cached?.item);
    expect(cached?.item.content).toBe(
      defaultToolOutputPlaceholder({
        toolName: 'bash',
        callId: 'call_d',
        isError: false,
        tokens: tokens.countItem(item),
        characters: big.length,
        content: big,
      }),
    );
    expect(cached?.saved).toBe(tokens.countItem(item) - tokens.countItem(cached?.item as Item));
    // The size in it is the counter's: another encoding writes (and counts) its own copy.
    const cl100k = await createTokenCounter({ encoding: 'cl100k_base' });
    const sized = pruneToolOutput(item, defaultToolOutputPlaceholder, cl100k);
    expect(sized?.item.content).toContain(`${cl100k.countItem(item)} tokens`);
    expect(sized?.saved).toBe(cl100k.countItem(item) - cl100k.countItem(sized?.item as Item));
  });

  it('a custom placeholder is asked on every pass, and a changed text gets a new copy', async () => {
    const tokens = await createTokenCounter();
    const item = output('e', big);
    let calls = 0;
    const placeholder = () => {
      calls += 1;
      return calls < 3 ? '[same text]' : `[text ${calls}]`;
    };
    const first = pruneToolOutput(item, placeholder, tokens);
    const second = pruneToolOutput(item, placeholder, tokens);
    const third = pruneToolOutput(item, placeholder, tokens);
    expect(calls).toBe(3);
    expect(second?.item).toBe(first?.item);
    expect(third?.item).not.toBe(first?.item);
    expect(third?.item.id).not.toBe(first?.item.id);
    expect(third?.item.content).toBe('[text 3]');
    expect(replacedItemId(third?.item as Item)).toBe('e');
  });
});
