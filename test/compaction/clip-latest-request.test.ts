import {
  createCompactor,
  createTokenCounter,
  type Item,
  tokenBudgetTrigger,
  validateTranscript,
} from 'loopkeeper';
import {
  clipLatestRequest,
  clipOversizedRequest,
  MIN_CLIPPED_REQUEST_TOKENS,
} from 'loopkeeper/compaction';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { replacedItemId } from '../../src/compaction/helpers/derived-item.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await createTokenCounter();
});

const request = [
  'ISSUE: TimeDelta serialization precision in src/marshmallow/fields.py (ticket MM-1867).',
  ...Array.from({ length: 120 }, (_, index) => `Tip ${index}: keep one tool call per answer.`),
  'Submit when the fix passes tests/test_fields.py.',
].join('\n');

/** A single-turn run: a long task statement and `steps` small exchanges. */
function singleTurn(steps: number): Item[] {
  const items: Item[] = [{ kind: 'user', id: 'u', content: request }];
  for (let step = 0; step < steps; step += 1) {
    items.push(
      {
        kind: 'assistant',
        id: `a${step}`,
        toolCalls: [{ id: `c${step}`, name: 'bash', arguments: `{"cmd":"ls dir${step}"}` }],
      },
      {
        kind: 'toolResult',
        id: `r${step}`,
        callId: `c${step}`,
        toolName: 'bash',
        content: `file${step}.py`,
        isError: false,
      },
    );
  }
  return items;
}

const signal = () => new AbortController().signal;

describe('clipLatestRequest', () => {
  it('cuts the middle of a latest request too long to fit, keeping its head and tail verbatim', () => {
    const transcript = singleTurn(1);
    const maxTokens = Math.floor(tokens.count(transcript) / 2);
    const output = clipLatestRequest(transcript, tokens, maxTokens);
    expect(tokens.count(output)).toBeLessThanOrEqual(maxTokens);
    const clipped = output[0];
    if (clipped?.kind !== 'user' || typeof clipped.content !== 'string') {
      throw new Error('expected the clipped request first');
    }
    expect(clipped.content.startsWith('ISSUE: TimeDelta serialization precision')).toBe(true);
    expect(clipped.content.endsWith('Submit when the fix passes tests/test_fields.py.')).toBe(true);
    expect(clipped.content).toMatch(/\[… \d+ lines, \d+ characters cut by compaction\./);
    expect(clipped.content).toContain('The whole request is in the session log');
    // The copy stands in for the logged request, which the log keeps whole.
    expect(replacedItemId(clipped)).toBe('u');
    expect(output.slice(1)).toEqual(transcript.slice(1));
    expect(validateTranscript(output)).toEqual([]);
  });

  it('cuts a request cut before again from its original, so there is one note, never a note inside a note', () => {
    const transcript = singleTurn(1);
    const once = clipLatestRequest(transcript, tokens, Math.floor(tokens.count(transcript) * 0.8));
    const original = new Map(transcript.map((item) => [item.id, item]));
    const originalOf = (item: Item) => original.get(replacedItemId(item) ?? '');
    const twice = clipLatestRequest(once, tokens, Math.floor(tokens.count(once) * 0.75), {
      originalOf,
    });
    const text = (items: readonly Item[]) =>
      items[0]?.kind === 'user' && typeof items[0].content === 'string' ? items[0].content : '';
    expect(tokens.count(twice)).toBeLessThan(tokens.count(once));
    expect(text(twice).match(/cut by compaction/g)).toHaveLength(1);
    expect(text(twice).startsWith('ISSUE: TimeDelta serialization precision')).toBe(true);
    expect(replacedItemId(twice[0] as Item)).toBe('u');
    // The note counts what was cut of the original request, not of the clipped copy.
    const cut = Number(/lines, (\d+) characters cut by compaction/.exec(text(twice))?.[1]);
    expect(cut).toBeGreaterThanOrEqual(request.length - text(twice).length);
  });

  it('on a tight budget keeps the opening to its floor even when a line ends early in it', () => {
    // Short opening lines: a cut at the last line end before the head's length would keep
    // little more than half of the opening.
    const opening = [
      'We are solving an issue in our repository.',
      'ISSUE:',
      'TimeDelta serialization precision',
      'Hi there!',
      'The field rounds 345 milliseconds down to 344 in src/marshmallow/fields.py (MM-1867).',
    ].join('\n');
    const long = [
      opening,
      ...Array.from({ length: 120 }, (_, index) => `Tip ${index}: one call.`),
    ].join('\n');
    const transcript: Item[] = [{ kind: 'user', id: 'u', content: long }];
    for (const maxTokens of [110, 130, 160]) {
      const output = clipLatestRequest(transcript, tokens, maxTokens);
      const clipped = output[0];
      if (clipped?.kind !== 'user' || typeof clipped.content !== 'string') {
        throw new Error('expected the clipped request');
      }
      expect(tokens.count(output)).toBeLessThanOrEqual(maxTokens);
      // The first 160 characters of the request are still there verbatim.
      expect(clipped.content.startsWith(long.slice(0, 160)), `budget ${maxTokens}`).toBe(true);
    }
  });

  it('leaves a transcript that fits, or one whose request would have to go below its floor', () => {
    const transcript = singleTurn(1);
    expect(clipLatestRequest(transcript, tokens, tokens.count(transcript))).toBe(transcript);
    const rest = tokens.count(transcript) - tokens.countItem(transcript[0] as Item);
    expect(clipLatestRequest(transcript, tokens, rest + MIN_CLIPPED_REQUEST_TOKENS - 1)).toBe(
      transcript,
    );
  });
});

describe('the emergency prune with a request that nearly fills the budget', () => {
  const transcript = singleTurn(12);

  it('fits by cutting the request (larger than the whole target, it is cut by the structural tier first), instead of ending in an overflow', async () => {
    const maxTokens = Math.floor(tokens.countItem(transcript[0] as Item) * 0.9);
    const compactor = createCompactor({
      trigger: tokenBudgetTrigger({ maxTokens, targetRatio: 0.9 }),
    });
    const outcome = await compactor.emergencyPrune({
      transcript,
      tokens,
      reason: 'threshold',
      signal: signal(),
    });
    expect(outcome.strategies).toContain('clipOversizedRequest');
    expect(outcome.fits).toBe(true);
    expect(validateTranscript(outcome.transcript)).toEqual([]);
    const first = outcome.transcript.find((item) => item.kind === 'user');
    expect(first?.kind === 'user' && first.content).toMatch(/^ISSUE: TimeDelta/);
    // The newest exchange is still there verbatim.
    expect(outcome.transcript.at(-1)).toBe(transcript.at(-1));
  });

  it('with clipLatestRequest: false, does not fit and leaves the request whole', async () => {
    const maxTokens = Math.floor(tokens.countItem(transcript[0] as Item) * 0.9);
    const compactor = createCompactor({
      trigger: tokenBudgetTrigger({ maxTokens, targetRatio: 0.9 }),
      emergency: { clipLatestRequest: false },
    });
    const outcome = await compactor.emergencyPrune({
      transcript,
      tokens,
      reason: 'threshold',
      signal: signal(),
    });
    expect(outcome.strategies).not.toContain('clipLatestRequest');
    expect(outcome.fits).toBe(false);
    expect(outcome.transcript).toContain(transcript[0]);
  });
});

describe('clipOversizedRequest', () => {
  it('cuts a latest request larger than the target to half of it, and leaves one that fits alone', async () => {
    const transcript = singleTurn(2);
    const size = tokens.countItem(transcript[0] as Item);
    const strategy = clipOversizedRequest();
    const budget = { maxTokens: size, targetTokens: Math.floor(size / 2) };
    const result = await strategy.apply(
      { transcript, reason: 'threshold', budget },
      { tokens, signal: signal() },
    );
    const [clipped] = result.transcript;
    expect(tokens.countItem(clipped as Item)).toBeLessThanOrEqual(budget.targetTokens / 2);
    expect(clipped?.kind === 'user' && clipped.content).toMatch(/^ISSUE: TimeDelta/);
    expect(clipped?.kind === 'user' && clipped.content).toContain('tests/test_fields.py');
    expect(result.transcript.slice(1)).toEqual(transcript.slice(1));
    const roomy = { maxTokens: size * 4, targetTokens: size * 2 };
    const kept = await strategy.apply(
      { transcript, reason: 'threshold', budget: roomy },
      { tokens, signal: signal() },
    );
    expect(kept.transcript).toBe(transcript);
  });
});
