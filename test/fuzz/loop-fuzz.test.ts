import fc from 'fast-check';
import type { TokenCounter } from 'loopkeeper/tokens';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedTokenCounter } from '../support/loop-harness.js';
import { emptyTotals, runSessionPlan } from './fuzz-driver.js';
import { sessionPlan } from './fuzz-plan.js';

/** Sessions per run; raise it for a longer fuzz, e.g. `LOOPKEEPER_FUZZ_RUNS=2000 npx vitest run test/fuzz`. */
const { LOOPKEEPER_FUZZ_RUNS = '300' } = process.env;
const numRuns = Number(LOOPKEEPER_FUZZ_RUNS);
if (!Number.isInteger(numRuns) || numRuns < 1) {
  throw new Error(`LOOPKEEPER_FUZZ_RUNS must be a whole number >= 1, got ${LOOPKEEPER_FUZZ_RUNS}`);
}

let tokens: TokenCounter;
const totals = emptyTotals();

beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

afterAll(() => {
  console.log(
    `\nLoop fuzz: ${totals.sessions} sessions, ${totals.runs} runs, ${totals.steps} steps, ` +
      `${totals.requestsChecked} model requests validated, ${totals.compactions} compactions; ` +
      `outcomes ${JSON.stringify(totals.outcomes)}, errors ${JSON.stringify(totals.errors)}\n`,
  );
});

describe('createAgentLoop under fuzzed models, tools, summarizers and aborts', () => {
  it(
    'after every run the log validates and replays to the live session, and every request was valid when sent',
    async () => {
      await fc.assert(
        fc.asyncProperty(sessionPlan, async (plan) => {
          const violations = await runSessionPlan({ plan, tokens, totals });
          expect(violations).toEqual([]);
        }),
        { numRuns },
      );
      // The fuzz is only as good as what it reached: every outcome and plenty of requests.
      expect(totals.requestsChecked).toBeGreaterThan(numRuns * 3);
      expect(Object.keys(totals.outcomes).sort()).toEqual(
        numRuns >= 200 ? ['aborted', 'completed', 'failed', 'step_limit'] : expect.any(Array),
      );
    },
    // About 35 ms a session; a raised LOOPKEEPER_FUZZ_RUNS gets the time it needs.
    Math.max(120_000, numRuns * 200),
  );
});
