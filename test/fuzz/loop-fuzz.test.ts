import fc from 'fast-check';
import type { TokenCounter } from 'loopkeeper/tokens';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedTokenCounter } from '../support/loop-harness.js';
import { runScenario } from '../support/scenario-driver.js';
import { sessionPlan } from './fuzz-plan.js';
import {
  emptyTotals,
  type FuzzTransport,
  planScenario,
  sessionViolations,
} from './plan-scenario.js';

/**
 * Sessions per run; raise it for a longer fuzz, e.g. `LOOPKEEPER_FUZZ_RUNS=2000 npx vitest run
 * test/fuzz`. `LOOPKEEPER_FUZZ_TRANSPORT=http` sends every planned answer through the real
 * openai SDK and the fake server instead of a `ScriptedModel` (about four times as slow).
 */
const { LOOPKEEPER_FUZZ_RUNS = '300', LOOPKEEPER_FUZZ_TRANSPORT = 'in-process' } = process.env;
const numRuns = Number(LOOPKEEPER_FUZZ_RUNS);
if (!Number.isInteger(numRuns) || numRuns < 1) {
  throw new Error(`LOOPKEEPER_FUZZ_RUNS must be a whole number >= 1, got ${LOOPKEEPER_FUZZ_RUNS}`);
}

if (LOOPKEEPER_FUZZ_TRANSPORT !== 'http' && LOOPKEEPER_FUZZ_TRANSPORT !== 'in-process') {
  throw new Error(
    `LOOPKEEPER_FUZZ_TRANSPORT must be http or in-process, got ${LOOPKEEPER_FUZZ_TRANSPORT}`,
  );
}
const transport: FuzzTransport = LOOPKEEPER_FUZZ_TRANSPORT;

let tokens: TokenCounter;
const totals = emptyTotals();

beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

afterAll(() => {
  console.log(
    `\nLoop fuzz (${transport}): ${totals.sessions} sessions, ${totals.runs} runs, ${totals.steps} steps, ` +
      `${totals.requestsChecked} model requests validated, ${totals.compactions} compactions; ` +
      `outcomes ${JSON.stringify(totals.outcomes)}, errors ${JSON.stringify(totals.errors)}\n`,
  );
});

describe('openAgentLoop under fuzzed model answers, tools, summarizers and aborts', () => {
  it(
    'after every run the log validates and replays to the live session, and every request was valid when sent',
    async () => {
      await fc.assert(
        fc.asyncProperty(sessionPlan, async (plan) => {
          const run = await runScenario({ tokens, ...planScenario({ plan, totals, transport }) });
          const cap = plan.maxConsecutiveCompactions;
          expect(sessionViolations({ run, cap, totals })).toEqual([]);
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
