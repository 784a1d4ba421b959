import type { Item } from '../../transcript/types.js';
import { leadingContextCount } from '../helpers/structure.js';
import { latestPlan, pinnedPlanItem } from './plan.js';

/**
 * `after` (a compaction's result) with the latest plan of `before` pinned: when no item of
 * `after` still shows the plan's text verbatim, a context item with it goes right after the
 * leading summary and host context. A plan the host set is pinned as `loopkeeper:plan` (system
 * role); one the model set with `update_plan` as `loopkeeper:model_plan`, which is sent as
 * fenced reference data in a user message, so the model's own words never gain system
 * authority. Returns `after` itself when nothing is missing, so an unchanged transcript stays
 * the same array.
 */
export function pinPlan(before: readonly Item[], after: readonly Item[]): readonly Item[] {
  const plan = latestPlan(before);
  if (plan === undefined) return after;
  const shown = after.some(
    (item) =>
      (item.kind === 'context' && item.name === plan.name && item.text === plan.text) ||
      (item.kind === 'toolResult' && item.content === plan.text),
  );
  if (shown) return after;
  const at = leadingContextCount(after);
  return [...after.slice(0, at), pinnedPlanItem(plan), ...after.slice(at)];
}
