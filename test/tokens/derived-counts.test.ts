import fc from 'fast-check';
import o200k from 'gpt-tokenizer/encoding/o200k_base';
import {
  type CompactionStrategy,
  createTokenCounter,
  dropFailedToolResults,
  dropReasoning,
  type Item,
  pipeline,
  pruneToolResults,
} from 'loopkeeper';
import { clipToolResults } from 'loopkeeper/compaction';
import type { TokenCounter } from 'loopkeeper/tokens';
import type { AssistantItem, ToolResultItem } from 'loopkeeper/transcript';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { validTranscriptArbitrary } from '../support/arbitraries.js';

let fresh: () => Promise<TokenCounter>;
beforeAll(async () => {
  await createTokenCounter(); // loads the encoding once
  fresh = () => createTokenCounter();
});

afterEach(() => {
  vi.restoreAllMocks();
});

interface StrategyCase {
  readonly label: string;
  readonly build: (inputTokens: number) => CompactionStrategy;
}

const strategyArbitrary: fc.Arbitrary<StrategyCase> = fc.oneof(
  fc.record({ keepLastTurn: fc.boolean(), dropEmpty: fc.boolean() }).map((options) => ({
    label: `dropReasoning(${JSON.stringify(options)})`,
    build: () => dropReasoning(options),
  })),
  fc.boolean().map((dropEmpty) => ({
    label: `dropFailedToolResults({dropEmpty: ${dropEmpty}})`,
    build: () => dropFailedToolResults({ dropEmpty }),
  })),
  fc.constant({
    label: 'pruneToolResults(nothing protected)',
    build: () => pruneToolResults({ protectRecentTokens: 0, minSavingsTokens: 0 }),
  }),
  fc.double({ min: 0.01, max: 0.5, noNaN: true }).map((share) => ({
    label: `clipToolResults(${share} of the input)`,
    build: (inputTokens: number) =>
      clipToolResults({ maxTokens: Math.max(1, Math.floor(inputTokens * share)) }),
  })),
);

/** One strategy or a pipeline of several, so copies of copies are counted too. */
const caseArbitrary: fc.Arbitrary<StrategyCase> = fc
  .array(strategyArbitrary, { minLength: 1, maxLength: 3 })
  .map((cases) => ({
    label: cases.map((entry) => entry.label).join(' then '),
    build: (inputTokens: number) => pipeline(...cases.map((entry) => entry.build(inputTokens))),
  }));

describe('createTokenCounter on derived items', () => {
  it('counts every item a strategy derives exactly as a fresh counter counts it from scratch', async () => {
    await fc.assert(
      fc.asyncProperty(
        validTranscriptArbitrary(),
        caseArbitrary,
        async (transcript: Item[], strategyCase) => {
          const warm = await createTokenCounter();
          const inputTokens = warm.count(transcript);
          const { transcript: output } = await strategyCase.build(inputTokens).apply(
            {
              transcript,
              reason: 'threshold',
              budget: { maxTokens: inputTokens, targetTokens: 0 },
            },
            { tokens: warm, signal: new AbortController().signal },
          );
          const scratch = await fresh();
          for (const item of output) {
            expect(warm.countItem(item), strategyCase.label).toBe(scratch.countItem(item));
          }
          expect(warm.count(output)).toBe(scratch.count(output));
        },
      ),
      { numRuns: 80 },
    );
  });

  it('tokenizes none of the texts a stripped assistant item kept', async () => {
    const counter = await createTokenCounter();
    const assistant: AssistantItem = {
      kind: 'assistant',
      id: 'answer',
      text: 'I will look at the failing test first. '.repeat(20),
      reasoning: [{ text: 'The stack trace points at the parser. '.repeat(40) }],
      toolCalls: [
        { id: 'call_1', name: 'read_file', arguments: '{"path":"src/parser.ts"}' },
        { id: 'call_2', name: 'bash', arguments: '{"command":"npm test -- parser"}' },
      ],
    };
    const result = (callId: string, isError: boolean): ToolResultItem => ({
      kind: 'toolResult',
      id: `result_${callId}`,
      callId,
      toolName: 'read_file',
      content: isError ? 'ENOENT' : 'export function parse() {}',
      isError,
    });
    const transcript: Item[] = [
      { kind: 'user', id: 'request', content: 'Fix the parser.' },
      assistant,
      result('call_1', true),
      result('call_2', false),
      { kind: 'user', id: 'next', content: 'And now?' },
    ];
    const context = { tokens: counter, signal: new AbortController().signal };
    const request = {
      transcript,
      reason: 'threshold' as const,
      budget: { maxTokens: 1, targetTokens: 0 },
    };
    counter.count(transcript);
    const encoder = vi.spyOn(o200k, 'countTokens');
    const stripped = await dropReasoning().apply(request, context);
    const trimmed = await dropFailedToolResults().apply(
      { ...request, transcript: stripped.transcript },
      context,
    );
    expect(encoder).not.toHaveBeenCalled();
    const copy = trimmed.transcript[1] as AssistantItem;
    expect(copy.reasoning).toBeUndefined();
    expect(copy.toolCalls?.map((call) => call.id)).toEqual(['call_2']);
    encoder.mockRestore();
    expect(counter.countItem(copy)).toBe((await fresh()).countItem(copy));
  });
});
