import { beforeAll, describe, expect, it } from 'vitest';
import { createCompactor } from '../../src/compaction/compactor.js';
import { tokenBudgetTrigger } from '../../src/compaction/triggers/token-budget-trigger.js';
import type { CompactionTrigger, MutationPoint } from '../../src/compaction/types.js';
import type { TokenCounter } from '../../src/tokens/types.js';
import { fromChatMessages } from '../../src/transcript/from-chat-messages.js';
import type { Item } from '../../src/transcript/types.js';
import { sharedTokenCounter } from '../support/loop-harness.js';
import { loadTranscriptFixtures } from '../support/transcripts.js';

let tokens: TokenCounter;
let transcript: readonly Item[];
beforeAll(async () => {
  tokens = await sharedTokenCounter();
  const [fixture] = loadTranscriptFixtures();
  transcript = fromChatMessages(fixture?.messages ?? []);
});

/** Fires on every call (so the emergency prune runs too) and records the point it is asked at. */
function firingTrigger(seen: (MutationPoint | undefined)[]): CompactionTrigger {
  const inner = tokenBudgetTrigger({ maxTokens: 2_000 });
  return {
    name: 'firing',
    evaluate(input) {
      seen.push(input.point);
      return { ...inner.evaluate(input), fire: true };
    },
  };
}

describe('compactor trigger calls', () => {
  it('mutate() hands its mutation point to every trigger call, as the seed asks its trigger at the point', async () => {
    const seen: (MutationPoint | undefined)[] = [];
    const compactor = createCompactor({ trigger: firingTrigger(seen) });
    const controller = new AbortController();
    const output = await compactor.mutate({
      transcript,
      tokens,
      point: 'AfterTurnEnded',
      signal: controller.signal,
    });
    expect(output.dirty && output.marker?.tier).toBe('emergency');
    // The decision, the compaction's checks and the emergency prune's checks.
    expect(seen.length).toBeGreaterThan(3);
    expect(new Set(seen)).toEqual(new Set(['AfterTurnEnded']));
  });

  it('compact() and emergencyPrune() called outside a loop leave the point absent', async () => {
    const seen: (MutationPoint | undefined)[] = [];
    const compactor = createCompactor({ trigger: firingTrigger(seen) });
    const signal = new AbortController().signal;
    await compactor.compact({ transcript, tokens, reason: 'manual', signal });
    await compactor.emergencyPrune({ transcript, tokens, reason: 'manual', signal });
    expect(seen.length).toBeGreaterThan(3);
    expect(new Set(seen)).toEqual(new Set([undefined]));
  });
});
