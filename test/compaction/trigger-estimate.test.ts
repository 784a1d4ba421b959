import fc from 'fast-check';
import { contextWindowTrigger, tokenBudgetTrigger } from 'loopkeeper';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { validTranscriptArbitrary } from '../support/arbitraries.js';
import { sharedTokenCounter } from '../support/loop-harness.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

describe('triggers with a known estimatedTokens', () => {
  it('decide exactly as when they count the transcript themselves (invariant: same decision)', () => {
    fc.assert(
      fc.property(
        validTranscriptArbitrary({ maxTurns: 4 }),
        fc.integer({ min: 100, max: 4_000 }),
        fc.option(
          fc.record({
            promptTokens: fc.integer({ min: 0, max: 6_000 }),
            share: fc.double({ min: 0, max: 1, noNaN: true }),
          }),
        ),
        (transcript, maxTokens, report) => {
          const reported =
            report === null
              ? undefined
              : {
                  promptTokens: report.promptTokens,
                  itemCount: Math.floor(report.share * transcript.length),
                };
          for (const trigger of [
            tokenBudgetTrigger({ maxTokens }),
            contextWindowTrigger({ window: maxTokens + 1_000, outputReserve: 1_000 }),
          ]) {
            const base =
              reported === undefined ? { transcript, tokens } : { transcript, tokens, reported };
            const counted = trigger.evaluate(base);
            const given = trigger.evaluate({ ...base, estimatedTokens: tokens.count(transcript) });
            expect(given).toEqual(counted);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
