import { createCompactor, fromChatMessages, type Item, tokenBudgetTrigger } from 'loopkeeper';
import type { CompactionTrigger, MutationPoint } from 'loopkeeper/compaction';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
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
  it('mutate() asks its trigger once, at its mutation point, as the seed asks its trigger at the point', async () => {
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
    // Asked once: the compaction and the emergency prune work to that decision's budget.
    expect(seen).toEqual(['AfterTurnEnded']);
  });

  it('compact() and emergencyPrune() called outside a loop leave the point absent', async () => {
    const seen: (MutationPoint | undefined)[] = [];
    const compactor = createCompactor({ trigger: firingTrigger(seen) });
    const signal = new AbortController().signal;
    await compactor.compact({ transcript, tokens, reason: 'manual', signal });
    await compactor.emergencyPrune({ transcript, tokens, reason: 'manual', signal });
    // Each asks once when it is not handed a decision.
    expect(seen).toEqual([undefined, undefined]);
  });

  it('compact() and emergencyPrune() handed a decision do not ask the trigger', async () => {
    const seen: (MutationPoint | undefined)[] = [];
    const trigger = firingTrigger([]);
    const compactor = createCompactor({ trigger: firingTrigger(seen) });
    const decision = trigger.evaluate({ transcript, tokens });
    const signal = new AbortController().signal;
    const compacted = await compactor.compact({
      transcript,
      tokens,
      reason: 'threshold',
      decision,
      signal,
    });
    const pruned = await compactor.emergencyPrune({
      transcript,
      tokens,
      reason: 'threshold',
      decision,
      signal,
    });
    expect(seen).toEqual([]);
    expect(compacted.budget).toEqual(decision.budget);
    expect(pruned.budget).toEqual(decision.budget);
    expect(pruned.tokensAfter).toBeLessThanOrEqual(decision.budget.targetTokens);
  });
});
