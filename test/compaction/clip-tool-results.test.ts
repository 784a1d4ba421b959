import {
  ConfigError,
  contextWindowTrigger,
  createTokenCounter,
  type Item,
  validateTranscript,
} from 'loopkeeper';
import { clipToolResults } from 'loopkeeper/compaction';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await createTokenCounter({ encoding: 'o200k_base' });
});

function turnWithOutput(content: string): Item[] {
  return [
    { kind: 'user', id: 'u1', content: 'run the tests' },
    { kind: 'assistant', id: 'a1', toolCalls: [{ id: 'c1', name: 'bash', arguments: '{}' }] },
    { kind: 'toolResult', id: 'r1', callId: 'c1', toolName: 'bash', content, isError: false },
  ];
}

const budget = { maxTokens: 2_000, targetTokens: 1_200 };
const context = () => ({ tokens, signal: new AbortController().signal });

describe('clipToolResults', () => {
  const log = [
    '$ pytest tests/',
    ...Array.from({ length: 400 }, (_, index) => `tests/test_part${index}.py::test_case PASSED`),
    'src/app/config.py:12: ValueError: missing key PAYMENT_ID_99812',
    ...Array.from({ length: 400 }, (_, index) => `tests/test_more${index}.py::test_case PASSED`),
    '=== 1 failed, 800 passed in 12.3s ===',
  ].join('\n');

  it('keeps head and tail verbatim, within 25% of the target, and lists what the cut part held', async () => {
    const transcript = turnWithOutput(log);
    const result = await clipToolResults().apply(
      { transcript, reason: 'threshold', budget },
      context(),
    );
    const clipped = result.transcript[2];
    if (clipped?.kind !== 'toolResult') throw new Error('expected the tool result');
    expect(tokens.countItem(clipped)).toBeLessThanOrEqual(Math.floor(budget.targetTokens * 0.25));
    expect(clipped.content.startsWith('$ pytest tests/\n')).toBe(true);
    expect(clipped.content.endsWith('=== 1 failed, 800 passed in 12.3s ===')).toBe(true);
    expect(clipped.content).toMatch(/\[… \d+ lines, \d+ characters cut by compaction\./);
    // The error line sat in the cut middle; the note quotes it.
    expect(clipped.content).toContain('ValueError: missing key PAYMENT_ID_99812');
    expect(clipped.content).toContain('src/app/config.py');
    expect(clipped.callId).toBe('c1');
    expect(validateTranscript(result.transcript)).toEqual([]);
  });

  it('cuts a single-line output (JSON) by characters', async () => {
    const json = JSON.stringify(
      Array.from({ length: 300 }, (_, index) => ({ flight: `HAT${index}`, seats: index })),
    );
    const result = await clipToolResults({ maxTokens: 200 }).apply(
      { transcript: turnWithOutput(json), reason: 'threshold', budget },
      context(),
    );
    const clipped = result.transcript[2];
    if (clipped?.kind !== 'toolResult') throw new Error('expected the tool result');
    expect(tokens.countItem(clipped)).toBeLessThanOrEqual(200);
    expect(clipped.content.startsWith('[{"flight":"HAT0"')).toBe(true);
    expect(clipped.content).toMatch(/\[… \d+ characters cut by compaction\./);
  });

  it('leaves outputs under the cap alone and never clips a clipped output again', async () => {
    const small = turnWithOutput('ok');
    const unchanged = await clipToolResults().apply(
      { transcript: small, reason: 'threshold', budget },
      context(),
    );
    expect(unchanged.transcript).toBe(small);
    const once = await clipToolResults().apply(
      { transcript: turnWithOutput(log), reason: 'threshold', budget },
      context(),
    );
    const twice = await clipToolResults({ maxTokens: 50 }).apply(
      { transcript: once.transcript, reason: 'threshold', budget },
      context(),
    );
    expect(twice.transcript).toBe(once.transcript);
  });

  it('refuses a cap that is not a positive number', () => {
    expect(() => clipToolResults({ maxTokens: 0 })).toThrow(ConfigError);
  });
});

describe('the request overhead on the estimate basis', () => {
  it('counts the instructions and tool schemas a caller measured, as reported usage would', () => {
    const trigger = contextWindowTrigger({ window: 1_000, percent: 80 });
    const transcript = turnWithOutput('x '.repeat(300));
    const items = tokens.count(transcript);
    const without = trigger.evaluate({ transcript, tokens });
    const withOverhead = trigger.evaluate({ transcript, tokens, overheadTokens: 500 });
    expect(without.tokens).toBe(items);
    expect(withOverhead.tokens).toBe(items + 500);
    expect(withOverhead.fire).toBe(items + 500 >= 800);
    // The budget left for items shrinks by the overhead, as on the reported basis.
    expect(withOverhead.budget.maxTokens).toBe(without.budget.maxTokens - 500);
  });
});
