import { ConfigError } from '../../errors/config-error.js';
import type { TokenCounter } from '../../tokens/types.js';
import { createItemId } from '../../transcript/ids.js';
import { type ContextItem, type Item, MODEL_PLAN_CONTEXT_NAME } from '../../transcript/types.js';
import { shapeProblems } from '../../vocabulary/schemas/describe-issues.js';
import { PlanUpdateSchema } from '../../vocabulary/schemas/host-input.js';

export { MODEL_PLAN_CONTEXT_NAME } from '../../transcript/types.js';

/**
 * Names the context item that carries the pinned plan.
 *
 * @example
 * ```ts
 * import { PLAN_CONTEXT_NAME } from 'loopkeeper/compaction';
 * import type { Item } from 'loopkeeper';
 *
 * const pinned = (items: readonly Item[]) =>
 *   items.filter((item) => item.kind === 'context' && item.name === PLAN_CONTEXT_NAME);
 * console.log(pinned([]).length);
 * ```
 */
export const PLAN_CONTEXT_NAME = 'loopkeeper:plan';

/**
 * The name of the opt-in built-in tool through which a model sets the plan (`updatePlanTool`).
 *
 * @example
 * ```ts
 * import { UPDATE_PLAN_TOOL_NAME } from 'loopkeeper/compaction';
 *
 * console.log(UPDATE_PLAN_TOOL_NAME); // 'update_plan'
 * ```
 */
export const UPDATE_PLAN_TOOL_NAME = 'update_plan';

export type PlanStepStatus = 'pending' | 'in_progress' | 'completed';

/** One step of a pinned plan. */
export interface PlanStep {
  readonly step: string;
  readonly status: PlanStepStatus;
}

/** What `plan.update` (or the `update_plan` tool) carries. */
export interface PlanUpdate {
  readonly plan: readonly PlanStep[];
  /** Why the plan changed, shown above it. */
  readonly explanation?: string;
}

const heading = 'Plan (pinned; the latest version replaces every earlier one):';

/**
 * The plan update checked: a list of steps, each with non-empty text and a known status, and
 * an optional explanation. Anything else is refused with a `ConfigError` naming what is wrong.
 *
 * @example
 * ```ts
 * import { checkPlanUpdate } from 'loopkeeper/compaction';
 *
 * const update = checkPlanUpdate({ plan: [{ step: 'Reproduce the bug', status: 'in_progress' }] });
 * console.log(update.plan.length); // 1
 * ```
 */
export function checkPlanUpdate(update: unknown): PlanUpdate {
  const problems = shapeProblems(PlanUpdateSchema, update, 'the plan update');
  if (problems.length > 0) {
    throw new ConfigError(`Not a plan update: ${problems.join('; ')}`, {
      code: 'config_invalid_input',
    });
  }
  const { plan, explanation } = update as PlanUpdate;
  const steps = plan.map(({ step, status }) => ({ step, status }));
  return explanation === undefined || explanation.trim() === ''
    ? { plan: steps }
    : { plan: steps, explanation };
}

/**
 * The plan as the model reads it: a heading, the explanation, then one numbered line per step
 * with its status. Step texts are quoted verbatim.
 *
 * @example
 * ```ts
 * import { renderPlan } from 'loopkeeper/compaction';
 *
 * console.log(renderPlan({ plan: [{ step: 'Write the test', status: 'pending' }] }));
 * ```
 */
export function renderPlan({ plan, explanation }: PlanUpdate): string {
  const lines = plan.map((step, index) => `${index + 1}. [${step.status}] ${step.step}`);
  return [
    heading,
    ...(explanation === undefined ? [] : [explanation]),
    ...(lines.length > 0 ? lines : ['(no steps)']),
  ].join('\n');
}

/** The context item that pins a plan in the transcript. */
export function createPlanItem(update: PlanUpdate): ContextItem {
  return {
    kind: 'context',
    id: createItemId('plan'),
    name: PLAN_CONTEXT_NAME,
    text: renderPlan(update),
  };
}

/** The latest plan of a transcript, and the name of the context item that pins it. */
export interface LatestPlan {
  readonly text: string;
  /**
   * `loopkeeper:plan` for a plan the host set (`plan.update`; sent with the system role), or
   * `loopkeeper:model_plan` for one the model set with `update_plan` (sent as fenced reference
   * data in a user message, since the model wrote it).
   */
  readonly name: typeof PLAN_CONTEXT_NAME | typeof MODEL_PLAN_CONTEXT_NAME;
}

/**
 * The latest plan in a transcript, from a `loopkeeper:plan` or `loopkeeper:model_plan` context
 * item or a successful `update_plan` tool result, whichever came last; undefined when none is
 * there.
 */
export function latestPlan(transcript: readonly Item[]): LatestPlan | undefined {
  for (let index = transcript.length - 1; index >= 0; index -= 1) {
    const item = transcript[index];
    if (item?.kind === 'context' && item.name === PLAN_CONTEXT_NAME) {
      return { text: item.text, name: PLAN_CONTEXT_NAME };
    }
    if (item?.kind === 'context' && item.name === MODEL_PLAN_CONTEXT_NAME) {
      return { text: item.text, name: MODEL_PLAN_CONTEXT_NAME };
    }
    if (item?.kind === 'toolResult' && item.toolName === UPDATE_PLAN_TOOL_NAME && !item.isError) {
      return { text: item.content, name: MODEL_PLAN_CONTEXT_NAME };
    }
  }
  return undefined;
}

/** The text of the latest plan in a transcript (`latestPlan`); undefined when none is there. */
export function latestPlanText(transcript: readonly Item[]): string | undefined {
  return latestPlan(transcript)?.text;
}

/** The item that pins the latest plan when a compaction has dropped it from view. */
export function pinnedPlanItem(plan: LatestPlan): ContextItem {
  return { kind: 'context', id: createItemId('plan'), name: plan.name, text: plan.text };
}

/**
 * Tokens to keep free for the plan a compaction pins (none without a plan): the item as it is
 * sent, fence and lead line included for a model-set plan.
 */
export function planReserveTokens(transcript: readonly Item[], tokens: TokenCounter): number {
  const plan = latestPlan(transcript);
  return plan === undefined ? 0 : tokens.countItem(pinnedPlanItem(plan)) + 4;
}
