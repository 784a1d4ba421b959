import fc from 'fast-check';
import { createTokenCounter } from 'loopkeeper';
import { describe, expect, it } from 'vitest';
import { upperBoundTokens } from '../../src/tokens/upper-bound-tokens.js';
import type { Item } from '../../src/transcript/types.js';

const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }));

const item: fc.Arbitrary<Item> = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), id: fc.uuid(), content: text }),
  // Items the counter accepts: an assistant item with no calls leaves `toolCalls` out.
  fc.record(
    {
      kind: fc.constant('assistant' as const),
      id: fc.uuid(),
      text,
      toolCalls: fc.array(
        fc.record({ id: fc.uuid(), name: fc.string({ minLength: 1 }), arguments: text }),
        { minLength: 1, maxLength: 3 },
      ),
    },
    { requiredKeys: ['kind', 'id', 'text'] },
  ),
  fc.record({
    kind: fc.constant('toolResult' as const),
    id: fc.uuid(),
    callId: fc.uuid(),
    toolName: fc.string({ minLength: 1 }),
    content: text,
    isError: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('context' as const), id: fc.uuid(), text }),
);

describe('upperBoundTokens', () => {
  it('never counts fewer tokens than the exact o200k and cl100k counters (bound holds)', async () => {
    const counters = await Promise.all([
      createTokenCounter({ encoding: 'o200k_base' }),
      createTokenCounter({ encoding: 'cl100k_base' }),
    ]);
    fc.assert(
      fc.property(fc.array(item, { maxLength: 6 }), (items) => {
        const bound = upperBoundTokens(items);
        for (const counter of counters) expect(bound).toBeGreaterThanOrEqual(counter.count(items));
      }),
      { numRuns: 300 },
    );
  });

  it('counts a text as its UTF-8 bytes plus the message overhead', () => {
    const item: Item = { kind: 'user', id: 'u1', content: 'héllo 👋' };
    // 3 (message) + 4 ("user") + 11 bytes.
    expect(upperBoundTokens([item])).toBe(3 + 4 + 11);
  });
});
