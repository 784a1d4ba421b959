/** loopkeeper's own span attributes and names, beside the GenAI conventions' ones. */

/**
 * The loop's run id on the run span, as `RunStarted` and `RunFinished` carry it.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { LOOPKEEPER_RUN_ID } from 'loopkeeper/otel';
 *
 * function runSpan(spans: readonly ReadableSpan[]) {
 *   return spans.find((span) => span.attributes[LOOPKEEPER_RUN_ID] === 'run_1');
 * }
 * ```
 */
export const LOOPKEEPER_RUN_ID = 'loopkeeper.run.id';

/**
 * How a run ended: `completed`, `failed`, `aborted` or `step_limit`.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { LOOPKEEPER_RUN_OUTCOME } from 'loopkeeper/otel';
 *
 * function failedRuns(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) => span.attributes[LOOPKEEPER_RUN_OUTCOME] === 'failed');
 * }
 * ```
 */
export const LOOPKEEPER_RUN_OUTCOME = 'loopkeeper.run.outcome';

/**
 * The inferences a run took.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { LOOPKEEPER_RUN_STEPS } from 'loopkeeper/otel';
 *
 * function longRuns(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) => Number(span.attributes[LOOPKEEPER_RUN_STEPS] ?? 0) > 20);
 * }
 * ```
 */
export const LOOPKEEPER_RUN_STEPS = 'loopkeeper.run.steps';

/**
 * The step number (inference count within its run) of a chat span.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { LOOPKEEPER_STEP } from 'loopkeeper/otel';
 *
 * function firstSteps(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) => span.attributes[LOOPKEEPER_STEP] === 1);
 * }
 * ```
 */
export const LOOPKEEPER_STEP = 'loopkeeper.step';

/**
 * loopkeeper's own estimate of a request's prompt tokens, to compare with the billed
 * `gen_ai.usage.input_tokens`.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { LOOPKEEPER_REQUEST_ESTIMATED_TOKENS } from 'loopkeeper/otel';
 *
 * function estimates(spans: readonly ReadableSpan[]) {
 *   return spans.map((span) => Number(span.attributes[LOOPKEEPER_REQUEST_ESTIMATED_TOKENS] ?? 0));
 * }
 * ```
 */
export const LOOPKEEPER_REQUEST_ESTIMATED_TOKENS = 'loopkeeper.request.estimated_tokens';

/**
 * How many transcript items a request sent.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { LOOPKEEPER_REQUEST_ITEM_COUNT } from 'loopkeeper/otel';
 *
 * function itemCounts(spans: readonly ReadableSpan[]) {
 *   return spans.map((span) => Number(span.attributes[LOOPKEEPER_REQUEST_ITEM_COUNT] ?? 0));
 * }
 * ```
 */
export const LOOPKEEPER_REQUEST_ITEM_COUNT = 'loopkeeper.request.item_count';

/**
 * How many tool calls a model answer asked for.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { LOOPKEEPER_RESPONSE_TOOL_CALLS } from 'loopkeeper/otel';
 *
 * function parallelCalls(spans: readonly ReadableSpan[]) {
 *   return spans.filter(
 *     (span) => Number(span.attributes[LOOPKEEPER_RESPONSE_TOOL_CALLS] ?? 0) > 1,
 *   );
 * }
 * ```
 */
export const LOOPKEEPER_RESPONSE_TOOL_CALLS = 'loopkeeper.response.tool_calls';

/**
 * The length in characters of a model answer's text (its content only with `captureContent`).
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { LOOPKEEPER_RESPONSE_TEXT_LENGTH } from 'loopkeeper/otel';
 *
 * function emptyAnswers(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) => span.attributes[LOOPKEEPER_RESPONSE_TEXT_LENGTH] === 0);
 * }
 * ```
 */
export const LOOPKEEPER_RESPONSE_TEXT_LENGTH = 'loopkeeper.response.text_length';

/**
 * The length in characters of a tool call's JSON arguments.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { LOOPKEEPER_TOOL_ARGUMENTS_LENGTH } from 'loopkeeper/otel';
 *
 * function largeArguments(spans: readonly ReadableSpan[]) {
 *   return spans.filter(
 *     (span) => Number(span.attributes[LOOPKEEPER_TOOL_ARGUMENTS_LENGTH] ?? 0) > 10_000,
 *   );
 * }
 * ```
 */
export const LOOPKEEPER_TOOL_ARGUMENTS_LENGTH = 'loopkeeper.tool.arguments_length';

/**
 * The length in characters of a tool's output.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { LOOPKEEPER_TOOL_OUTPUT_LENGTH } from 'loopkeeper/otel';
 *
 * function largeOutputs(spans: readonly ReadableSpan[]) {
 *   return spans.filter(
 *     (span) => Number(span.attributes[LOOPKEEPER_TOOL_OUTPUT_LENGTH] ?? 0) > 50_000,
 *   );
 * }
 * ```
 */
export const LOOPKEEPER_TOOL_OUTPUT_LENGTH = 'loopkeeper.tool.output_length';

/**
 * Whether a tool call ended as an error result.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { LOOPKEEPER_TOOL_IS_ERROR } from 'loopkeeper/otel';
 *
 * function failedTools(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) => span.attributes[LOOPKEEPER_TOOL_IS_ERROR] === true);
 * }
 * ```
 */
export const LOOPKEEPER_TOOL_IS_ERROR = 'loopkeeper.tool.is_error';

/**
 * Why a compaction ran: `threshold`, `overflow`, `payload_too_large` or `manual`.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { LOOPKEEPER_COMPACTION_REASON } from 'loopkeeper/otel';
 *
 * function overflows(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) => span.attributes[LOOPKEEPER_COMPACTION_REASON] === 'overflow');
 * }
 * ```
 */
export const LOOPKEEPER_COMPACTION_REASON = 'loopkeeper.compaction.reason';

/**
 * The tier a compaction ended at: `structural`, `summary`, `emergency` or `mutator`.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { LOOPKEEPER_COMPACTION_TIER } from 'loopkeeper/otel';
 *
 * function emergencies(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) => span.attributes[LOOPKEEPER_COMPACTION_TIER] === 'emergency');
 * }
 * ```
 */
export const LOOPKEEPER_COMPACTION_TIER = 'loopkeeper.compaction.tier';

/**
 * Whether a compaction answered a provider refusal (`overflow` or `payload_too_large`) rather
 * than a trigger.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { LOOPKEEPER_COMPACTION_REACTIVE } from 'loopkeeper/otel';
 *
 * function reactive(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) => span.attributes[LOOPKEEPER_COMPACTION_REACTIVE] === true);
 * }
 * ```
 */
export const LOOPKEEPER_COMPACTION_REACTIVE = 'loopkeeper.compaction.reactive';

/**
 * The compaction's number among the consecutive compactions of its run (capped by
 * `maxConsecutiveCompactions`).
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { LOOPKEEPER_COMPACTION_ATTEMPT } from 'loopkeeper/otel';
 *
 * function retries(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) => Number(span.attributes[LOOPKEEPER_COMPACTION_ATTEMPT] ?? 0) > 1);
 * }
 * ```
 */
export const LOOPKEEPER_COMPACTION_ATTEMPT = 'loopkeeper.compaction.attempt';

/**
 * The strategies that changed the transcript, as a string array.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { LOOPKEEPER_COMPACTION_STRATEGIES } from 'loopkeeper/otel';
 *
 * function summarized(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) =>
 *     String(span.attributes[LOOPKEEPER_COMPACTION_STRATEGIES]).includes('summarizeOlder'),
 *   );
 * }
 * ```
 */
export const LOOPKEEPER_COMPACTION_STRATEGIES = 'loopkeeper.compaction.strategies';

/**
 * The transcript's tokens before a compaction.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import {
 *   LOOPKEEPER_COMPACTION_TOKENS_AFTER,
 *   LOOPKEEPER_COMPACTION_TOKENS_BEFORE,
 * } from 'loopkeeper/otel';
 *
 * function saved(spans: readonly ReadableSpan[]) {
 *   return spans.map(
 *     (span) =>
 *       Number(span.attributes[LOOPKEEPER_COMPACTION_TOKENS_BEFORE] ?? 0) -
 *       Number(span.attributes[LOOPKEEPER_COMPACTION_TOKENS_AFTER] ?? 0),
 *   );
 * }
 * ```
 */
export const LOOPKEEPER_COMPACTION_TOKENS_BEFORE = 'loopkeeper.compaction.tokens_before';

/**
 * The transcript's tokens after a compaction.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { LOOPKEEPER_COMPACTION_TOKENS_AFTER } from 'loopkeeper/otel';
 *
 * function sizes(spans: readonly ReadableSpan[]) {
 *   return spans.map((span) => Number(span.attributes[LOOPKEEPER_COMPACTION_TOKENS_AFTER] ?? 0));
 * }
 * ```
 */
export const LOOPKEEPER_COMPACTION_TOKENS_AFTER = 'loopkeeper.compaction.tokens_after';

/**
 * Whether a compaction brought the transcript under its trigger (an ineffective one goes on to
 * the emergency prune).
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { LOOPKEEPER_COMPACTION_EFFECTIVE } from 'loopkeeper/otel';
 *
 * function ineffective(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) => span.attributes[LOOPKEEPER_COMPACTION_EFFECTIVE] === false);
 * }
 * ```
 */
export const LOOPKEEPER_COMPACTION_EFFECTIVE = 'loopkeeper.compaction.effective';

/**
 * Whether an emergency prune fit the latest turn into the budget.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { LOOPKEEPER_COMPACTION_FITS } from 'loopkeeper/otel';
 *
 * function overflowing(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) => span.attributes[LOOPKEEPER_COMPACTION_FITS] === false);
 * }
 * ```
 */
export const LOOPKEEPER_COMPACTION_FITS = 'loopkeeper.compaction.fits';

/**
 * The name of the host mutator a `loopkeeper.mutation` span ran.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { LOOPKEEPER_MUTATOR } from 'loopkeeper/otel';
 *
 * function runsOfMutator(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) => span.attributes[LOOPKEEPER_MUTATOR] === 'redact-secrets');
 * }
 * ```
 */
export const LOOPKEEPER_MUTATOR = 'loopkeeper.mutator';

/**
 * Where a mutator ran: `AfterToolResult`, `AfterTurnEnded` or `BeforeInference`.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { LOOPKEEPER_MUTATION_POINT } from 'loopkeeper/otel';
 *
 * function afterTools(spans: readonly ReadableSpan[]) {
 *   return spans.filter(
 *     (span) => span.attributes[LOOPKEEPER_MUTATION_POINT] === 'AfterToolResult',
 *   );
 * }
 * ```
 */
export const LOOPKEEPER_MUTATION_POINT = 'loopkeeper.mutation.point';

/**
 * Whether a mutator changed the transcript.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { LOOPKEEPER_MUTATION_DIRTY } from 'loopkeeper/otel';
 *
 * function changes(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) => span.attributes[LOOPKEEPER_MUTATION_DIRTY] === true).length;
 * }
 * ```
 */
export const LOOPKEEPER_MUTATION_DIRTY = 'loopkeeper.mutation.dirty';

/**
 * On a child loop's run span (e.g. the agent summarizer's): what runs the child loop, such as the
 * summarizer's name.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { LOOPKEEPER_CHILD_SOURCE } from 'loopkeeper/otel';
 *
 * function childRuns(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) => span.attributes[LOOPKEEPER_CHILD_SOURCE] !== undefined);
 * }
 * ```
 */
export const LOOPKEEPER_CHILD_SOURCE = 'loopkeeper.child.source';

/**
 * The span of one compaction (or emergency prune) of a run.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { COMPACTION_SPAN_NAME } from 'loopkeeper/otel';
 *
 * function compactionSpans(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) => span.name === COMPACTION_SPAN_NAME);
 * }
 * ```
 */
export const COMPACTION_SPAN_NAME = 'loopkeeper.compaction';

/**
 * The span of one host mutator's run.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { MUTATION_SPAN_NAME } from 'loopkeeper/otel';
 *
 * function mutationSpans(spans: readonly ReadableSpan[]) {
 *   return spans.filter((span) => span.name === MUTATION_SPAN_NAME);
 * }
 * ```
 */
export const MUTATION_SPAN_NAME = 'loopkeeper.mutation';

/**
 * Span event on a chat span when the first streamed text arrives (time to first token).
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * import { FIRST_DELTA_EVENT_NAME } from 'loopkeeper/otel';
 *
 * function timeToFirstToken(spans: readonly ReadableSpan[]) {
 *   return spans.map(
 *     (span) => span.events.find((event) => event.name === FIRST_DELTA_EVENT_NAME)?.time,
 *   );
 * }
 * ```
 */
export const FIRST_DELTA_EVENT_NAME = 'loopkeeper.inference.first_delta';
