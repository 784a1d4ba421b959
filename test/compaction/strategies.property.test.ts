import fc from 'fast-check';
import {
  type CompactionStrategy,
  createTokenCounter,
  dropFailedToolResults,
  dropReasoning,
  emergencyPrune,
  type Item,
  keepRecent,
  pipeline,
  pruneToolResults,
  validateTranscript,
} from 'loopkeeper';
import {
  type CompactionBudget,
  emergencyPruneTranscript,
  isSummaryItem,
  pruneLargestToolResults,
} from 'loopkeeper/compaction';
import type { TokenCounter } from 'loopkeeper/tokens';
import { ITEM_KINDS, type ItemKind } from 'loopkeeper/transcript';
import { beforeAll, describe, expect, it } from 'vitest';
import { validTranscriptArbitrary } from '../support/arbitraries.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await createTokenCounter();
});

const numRuns = 60;

/**
 * A strategy to build, with a label fast-check prints when a property fails. Token options are
 * shares of the input's size, so small and large transcripts both meet options that bite.
 */
interface StrategyCase {
  readonly label: string;
  readonly build: (inputTokens: number) => CompactionStrategy;
}

const shareArbitrary = fc.double({ min: 0, max: 1.2, noNaN: true });
const share = (inputTokens: number, fraction: number) => Math.floor(inputTokens * fraction);

const placeholderArbitrary = fc.constantFrom(
  undefined,
  '[pruned]',
  ({ toolName, tokens: size }: { toolName: string; tokens: number }) => `${toolName}: ${size} tok`,
  // Would shrink again if pruned twice: only the pruned mark keeps pruning idempotent.
  ({ tokens: size }: { tokens: number }) => 'gone '.repeat(Math.ceil(Math.log2(size + 1))),
);

const structuralCaseArbitrary: fc.Arbitrary<StrategyCase> = fc.oneof(
  fc.boolean().map((keepLastTurn) => ({
    label: `dropReasoning({keepLastTurn: ${keepLastTurn}})`,
    build: () => dropReasoning({ keepLastTurn }),
  })),
  fc.constant({ label: 'dropFailedToolResults()', build: () => dropFailedToolResults() }),
  fc
    .record({
      protect: shareArbitrary,
      minSavings: shareArbitrary,
      minOutput: fc.option(fc.integer({ min: 0, max: 200 }), { nil: undefined }),
      placeholder: placeholderArbitrary,
    })
    .map(({ protect, minSavings, minOutput, placeholder }) => ({
      label: `pruneToolResults(protect ${protect}, minSavings ${minSavings}, minOutput ${minOutput}, placeholder: ${typeof placeholder})`,
      build: (inputTokens: number) =>
        pruneToolResults({
          protectRecentTokens: share(inputTokens, protect),
          minSavingsTokens: share(inputTokens, minSavings / 4),
          ...(minOutput === undefined ? {} : { minOutputTokens: minOutput }),
          ...(placeholder === undefined ? {} : { placeholder }),
        }),
    })),
  placeholderArbitrary.map((placeholder) => ({
    label: `pruneLargestToolResults(placeholder: ${typeof placeholder})`,
    build: () => pruneLargestToolResults(placeholder === undefined ? {} : { placeholder }),
  })),
);

const preserveArbitrary: fc.Arbitrary<ItemKind[]> = fc.subarray([...ITEM_KINDS]);

const keepRecentArbitrary = fc
  .record({
    count: fc.oneof(
      fc.nat({ max: 30 }).map((items) => ({ items })),
      shareArbitrary.map((tokens) => ({ tokens })),
    ),
    preserve: preserveArbitrary,
  })
  .map(({ count, preserve }) => ({
    count,
    preserve,
    label: `keepRecent(${JSON.stringify({ ...count, preserve })})`,
    build: (inputTokens: number) =>
      'items' in count
        ? keepRecent({ items: count.items, preserve })
        : keepRecent({ tokens: share(inputTokens, count.tokens), preserve }),
  }));

const emergencyCaseArbitrary: fc.Arbitrary<StrategyCase> = fc
  .option(shareArbitrary, { nil: undefined })
  .map((maxShare) => ({
    label: `emergencyPrune({maxTokens: ${maxShare ?? 'budget'}})`,
    build: (inputTokens: number) =>
      emergencyPrune(maxShare === undefined ? {} : { maxTokens: share(inputTokens, maxShare) }),
  }));

const singleCaseArbitrary: fc.Arbitrary<StrategyCase> = fc.oneof(
  structuralCaseArbitrary,
  keepRecentArbitrary,
  emergencyCaseArbitrary,
);

const pipelineCaseArbitrary: fc.Arbitrary<StrategyCase> = fc
  .array(singleCaseArbitrary, { maxLength: 4 })
  .map((cases) => ({
    label: `pipeline(${cases.map((entry) => entry.label).join(', ')})`,
    build: (inputTokens: number) => pipeline(...cases.map((entry) => entry.build(inputTokens))),
  }));

const anyCaseArbitrary = fc.oneof(singleCaseArbitrary, pipelineCaseArbitrary);

/** Budget as shares of the input size, so every strategy meets budgets it can and cannot reach. */
const budgetSharesArbitrary = fc
  .tuple(fc.double({ min: 0, max: 1.3, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }))
  .map(([maxShare, targetShare]) => ({ maxShare, targetShare }));

function budgetFor(
  transcript: readonly Item[],
  shares: { maxShare: number; targetShare: number },
): CompactionBudget {
  const maxTokens = Math.floor(tokens.count(transcript) * shares.maxShare);
  return { maxTokens, targetTokens: Math.floor(maxTokens * shares.targetShare) };
}

function apply(
  strategy: CompactionStrategy,
  transcript: readonly Item[],
  budget: CompactionBudget,
) {
  return strategy.apply(
    { transcript, reason: 'threshold', budget },
    { tokens, signal: new AbortController().signal },
  );
}

function latestUser(transcript: readonly Item[]): Item | undefined {
  return transcript.findLast((item) => item.kind === 'user');
}

/** Item content without ids: changed copies get fresh ids, so content is what must repeat. */
function withoutIds(transcript: readonly Item[]) {
  return transcript.map(({ id: _id, ...content }) => content);
}

describe('compaction strategies (property)', () => {
  it('every strategy and random pipeline returns a valid transcript, never larger, keeping the latest user item', async () => {
    await fc.assert(
      fc.asyncProperty(
        validTranscriptArbitrary(),
        anyCaseArbitrary,
        budgetSharesArbitrary,
        async (transcript, strategyCase, shares) => {
          const frozen = structuredClone(transcript);
          const { transcript: output, metadata } = await apply(
            strategyCase.build(tokens.count(transcript)),
            transcript,
            budgetFor(transcript, shares),
          );
          expect(validateTranscript(output)).toEqual([]);
          expect(tokens.count(output)).toBeLessThanOrEqual(tokens.count(transcript));
          const latest = latestUser(transcript);
          expect(latest).toBeDefined();
          expect(latestUser(output)).toBe(latest);
          expect(transcript).toEqual(frozen);
          expect(typeof metadata).toBe('object');
        },
      ),
      { numRuns },
    );
  });

  it('keepRecent keeps every item of a preserved kind', async () => {
    await fc.assert(
      fc.asyncProperty(
        validTranscriptArbitrary(),
        keepRecentArbitrary,
        async (transcript, keep) => {
          const { transcript: output } = await apply(
            keep.build(tokens.count(transcript)),
            transcript,
            {
              maxTokens: 0,
              targetTokens: 0,
            },
          );
          const kept = new Set(output);
          const preserved = new Set(keep.preserve);
          for (const item of transcript) {
            if (preserved.has(item.kind)) expect(kept.has(item)).toBe(true);
          }
          if ('items' in keep.count) {
            // The asked-for tail is kept too (the cut only ever moves back).
            for (const item of transcript.slice(transcript.length - keep.count.items)) {
              if (keep.count.items > 0) expect(kept.has(item)).toBe(true);
            }
          }
        },
      ),
      { numRuns },
    );
  });

  it('emergencyPrune keeps the summary and the latest turn always, and fits maxTokens unless those two alone exceed it', async () => {
    await fc.assert(
      fc.asyncProperty(
        validTranscriptArbitrary(),
        fc.boolean(),
        shareArbitrary,
        async (transcript, aroundLatestTurn, fraction) => {
          const latestTurn = transcript.slice(
            transcript.findLastIndex((item) => item.kind === 'user'),
          );
          const latestTokens = tokens.count(latestTurn);
          // Half the budgets sit near the latest turn's own size, where the interesting cases are.
          const maxTokens = aroundLatestTurn
            ? Math.floor(latestTokens * 0.8 + (tokens.count(transcript) - latestTokens) * fraction)
            : share(tokens.count(transcript), fraction);
          const outcome = emergencyPruneTranscript({ transcript, tokens, maxTokens });
          expect(validateTranscript(outcome.transcript)).toEqual([]);
          // The latest turn is always kept whole, at the end.
          expect(outcome.transcript.slice(-latestTurn.length)).toEqual(latestTurn);
          // A leading summary is always kept in front: whole when it fits beside the latest
          // turn, otherwise cut down; it is never dropped.
          const summary = transcript[0];
          const hasSummary = summary !== undefined && isSummaryItem(summary);
          const kept = outcome.transcript[0];
          if (hasSummary) {
            expect(kept !== undefined && isSummaryItem(kept)).toBe(true);
            if (tokens.count([summary, ...latestTurn]) <= maxTokens) expect(kept).toBe(summary);
          }
          const floor = hasSummary && kept !== undefined ? [kept, ...latestTurn] : latestTurn;
          if (tokens.count(floor) <= maxTokens) {
            expect(outcome.fits).toBe(true);
            expect(tokens.count(outcome.transcript)).toBeLessThanOrEqual(maxTokens);
          } else {
            expect(outcome.fits).toBe(false);
            expect(outcome.transcript).toEqual(floor);
          }
        },
      ),
      { numRuns },
    );
  });

  it('the structural tiers (dropReasoning + pruneToolResults) are idempotent: twice equals once', async () => {
    await fc.assert(
      fc.asyncProperty(
        validTranscriptArbitrary(),
        fc.boolean(),
        shareArbitrary,
        shareArbitrary,
        placeholderArbitrary,
        budgetSharesArbitrary,
        async (transcript, keepLastTurn, protect, minSavings, placeholder, shares) => {
          const inputTokens = tokens.count(transcript);
          const structural = pipeline(
            dropReasoning({ keepLastTurn }),
            pruneToolResults({
              protectRecentTokens: share(inputTokens, protect),
              minSavingsTokens: share(inputTokens, minSavings / 4),
              ...(placeholder === undefined ? {} : { placeholder }),
            }),
          );
          const budget = budgetFor(transcript, shares);
          const once = await apply(structural, transcript, budget);
          const twice = await apply(structural, once.transcript, budget);
          expect(withoutIds(twice.transcript)).toEqual(withoutIds(once.transcript));
          // Unchanged items keep their ids, so the second pass changes nothing at all.
          expect(twice.transcript.map((item) => item.id)).toEqual(
            once.transcript.map((item) => item.id),
          );
        },
      ),
      { numRuns },
    );
  });

  it('token figures carried in metadata equal a count of each transcript, on the first pass and on a pass that reuses copies', async () => {
    await fc.assert(
      fc.asyncProperty(
        validTranscriptArbitrary(),
        anyCaseArbitrary,
        budgetSharesArbitrary,
        async (transcript, strategyCase, shares) => {
          const strategy = strategyCase.build(tokens.count(transcript));
          const budget = budgetFor(transcript, shares);
          for (let pass = 0; pass < 2; pass += 1) {
            const { transcript: output, metadata } = await apply(strategy, transcript, budget);
            // Strategies add up what each change saved instead of recounting (derived-counts
            // checks separately that the counts of copies are those of a fresh counter).
            if (typeof metadata['tokensBefore'] === 'number') {
              expect(metadata['tokensBefore']).toBe(tokens.count(transcript));
            }
            if (typeof metadata['tokensAfter'] === 'number') {
              expect(metadata['tokensAfter']).toBe(tokens.count(output));
            }
          }
        },
      ),
      { numRuns },
    );
  });
});
