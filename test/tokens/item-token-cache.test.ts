import type { ToolResultItem } from 'loopkeeper/transcript';
import { describe, expect, it } from 'vitest';
import { createItemTokenCache } from '../../src/tokens/item-token-cache.js';

const result = (id: string, content = 'output'): ToolResultItem => ({
  kind: 'toolResult',
  id,
  callId: `call_${id}`,
  toolName: 'bash',
  content,
  isError: false,
});

describe('createItemTokenCache', () => {
  it('never holds more than maxEntries, and keeps at least the newest half', () => {
    for (const maxEntries of [1, 2, 3, 10, 11]) {
      const cache = createItemTokenCache({ maxEntries });
      for (let index = 0; index < 50; index += 1) {
        cache.set(result(`item_${index}`), index);
        expect(cache.size).toBeLessThanOrEqual(maxEntries);
      }
      const newest = Math.max(1, Math.floor(maxEntries / 2));
      for (let index = 50 - newest; index < 50; index += 1) {
        expect(cache.get(result(`item_${index}`))).toBe(index);
      }
    }
  });

  it('gives an entry hit in the old generation a second chance', () => {
    const cache = createItemTokenCache({ maxEntries: 4 });
    cache.set(result('kept'), 1);
    cache.set(result('other'), 2);
    cache.set(result('third'), 3); // 'kept' and 'other' are the old generation now
    expect(cache.get(result('kept'))).toBe(1); // back to the young one
    cache.set(result('fourth'), 4);
    cache.set(result('fifth'), 5);
    expect(cache.get(result('kept'))).toBe(1);
    expect(cache.get(result('other'))).toBeUndefined();
  });

  it('misses an id shown with content of another length or kind', () => {
    const cache = createItemTokenCache();
    cache.set(result('same', 'a long original output'), 9);
    expect(cache.get(result('same', '[pruned]'))).toBeUndefined();
    expect(cache.get({ kind: 'user', id: 'same', content: 'a long original output' })).toBe(
      undefined,
    );
    expect(cache.get(result('same', 'a long original output'))).toBe(9);
  });
});
