import fc from 'fast-check';
import type { UserContentPart } from 'loopkeeper/transcript';

/** What one planned tool call does when it runs. */
export type ToolMode = 'ok' | 'big' | 'throw' | 'slow' | 'abort';

export interface PlannedCall {
  /** `work` exists; `missing` is a tool the loop does not have. */
  readonly tool: 'work' | 'missing';
  readonly mode: ToolMode;
  /** Send arguments that are not valid JSON. */
  readonly brokenArguments: boolean;
}

/** One planned model answer, taken by the next request whatever it is. */
export type PlannedAnswer =
  | { readonly kind: 'text'; readonly words: number }
  | { readonly kind: 'tools'; readonly calls: readonly PlannedCall[] }
  | { readonly kind: 'overflow' }
  | { readonly kind: 'too_large' }
  | { readonly kind: 'server-error' }
  | { readonly kind: 'abort' };

/** What one summarizer call does. */
export type PlannedSummary = 'ok' | 'error' | 'empty' | 'sectionless' | 'timeout' | 'abort';

/** A whole session: messages sent one after another, with the model's and summarizer's answers queued. */
export interface SessionPlan {
  /** Text, or text with an image: a request compaction cannot cut, up to twice the line. */
  readonly messages: readonly (string | readonly UserContentPart[])[];
  /** Taken in order by every model request of the session; once empty the model answers with text. */
  readonly answers: readonly PlannedAnswer[];
  /** Taken in order by every summarizer call; once empty the summarizer succeeds. */
  readonly summaries: readonly PlannedSummary[];
  readonly maxConsecutiveCompactions: number;
  /**
   * The context window above the 700-token line, or null for a line that is the limit
   * (`tokenBudgetTrigger`). With a window the emergency prune may let a turn over the line
   * through, and the loop's compaction floor holds the next checks.
   */
  readonly window: 1_400 | 2_500 | null;
  /** Appends to the store (counted from 1 over the session) that fail, as on a full disk. */
  readonly failingAppends: readonly number[];
}

const call: fc.Arbitrary<PlannedCall> = fc.record({
  tool: fc.constantFrom<PlannedCall['tool']>('work', 'work', 'work', 'missing'),
  mode: fc.constantFrom<ToolMode>('ok', 'ok', 'ok', 'big', 'big', 'throw', 'slow', 'abort'),
  brokenArguments: fc.constantFrom(false, false, false, false, true),
});

const answer: fc.Arbitrary<PlannedAnswer> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('text' as const),
      words: fc.integer({ min: 0, max: 160 }),
    }),
    weight: 5,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('tools' as const),
      calls: fc.array(call, { minLength: 1, maxLength: 3 }),
    }),
    weight: 6,
  },
  { arbitrary: fc.constant({ kind: 'overflow' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'too_large' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'server-error' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'abort' as const }), weight: 1 },
);

const summary: fc.Arbitrary<PlannedSummary> = fc.constantFrom<PlannedSummary>(
  'ok',
  'ok',
  'error',
  'empty',
  'sectionless',
  'timeout',
  'abort',
);

export const sessionPlan: fc.Arbitrary<SessionPlan> = fc.record({
  messages: fc.array(
    fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.integer({ min: 1, max: 200 }).map((words) => `Please ${'consider '.repeat(words)}`),
      fc.integer({ min: 300, max: 1_400 }).map((words): readonly UserContentPart[] => [
        { type: 'text', text: `Look at this. ${'consider '.repeat(words)}` },
        { type: 'image', url: 'https://example.invalid/screen.png' },
      ]),
    ),
    { minLength: 2, maxLength: 7 },
  ),
  answers: fc.array(answer, { minLength: 4, maxLength: 30 }),
  summaries: fc.array(summary, { maxLength: 6 }),
  maxConsecutiveCompactions: fc.integer({ min: 0, max: 3 }),
  window: fc.constantFrom<SessionPlan['window']>(null, null, 1_400, 2_500),
  failingAppends: fc.oneof(
    { arbitrary: fc.constant([]), weight: 3 },
    { arbitrary: fc.uniqueArray(fc.integer({ min: 1, max: 40 }), { maxLength: 3 }), weight: 1 },
  ),
});
