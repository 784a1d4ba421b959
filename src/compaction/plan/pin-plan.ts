import { createItemId } from '../../transcript/ids.js';
import type { Item } from '../../transcript/types.js';
import { leadingContextCount } from '../helpers/structure.js';
import { latestPlanText, PLAN_CONTEXT_NAME } from './plan.js';

/**
 * `after` (a compaction's result) with the latest plan of `before` pinned: when no item of
 * `after` still shows the plan's text verbatim, a `loopkeeper:plan` context item with it goes
 * right after the leading summary and host context. Returns `after` itself when nothing is
 * missing, so an unchanged transcript stays the same array.
 */
export function pinPlan(before: readonly Item[], after: readonly Item[]): readonly Item[] {
  const text = latestPlanText(before);
  if (text === undefined) return after;
  const shown = after.some(
    (item) =>
      (item.kind === 'context' && item.name === PLAN_CONTEXT_NAME && item.text === text) ||
      (item.kind === 'toolResult' && item.content === text),
  );
  if (shown) return after;
  const at = leadingContextCount(after);
  const item: Item = { kind: 'context', id: createItemId('plan'), name: PLAN_CONTEXT_NAME, text };
  return [...after.slice(0, at), item, ...after.slice(at)];
}
