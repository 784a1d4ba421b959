import { checkPlanUpdate, renderPlan, UPDATE_PLAN_TOOL_NAME } from '../compaction/plan/plan.js';
import { defineTool } from './define-tool.js';
import type { ToolDefinition } from './types.js';

/**
 * The opt-in built-in `update_plan` tool: the model sets the task list itself. Its result is
 * the plan as rendered (`renderPlan`), and every compaction tier keeps the latest one verbatim
 * (as a `loopkeeper:plan` item when the call itself is compacted away), like a plan the host
 * sets with `loop.send({type: 'plan.update', plan})`. A plan that is not a list of
 * `{step, status}` comes back as a failed result naming what is wrong.
 *
 * @example
 * ```ts
 * import { createAgentLoop } from 'loopkeeper';
 * import { ScriptedModel } from 'loopkeeper/testing';
 * import { updatePlanTool } from 'loopkeeper/tools';
 *
 * const loop = createAgentLoop({
 *   model: new ScriptedModel({ turns: [] }),
 *   tools: [updatePlanTool()],
 * });
 * ```
 */
export function updatePlanTool({
  description = 'Replace the task plan. Give every step with its status (pending, in_progress, completed); keep at most one step in_progress. The latest plan stays visible to you after older turns are compacted.',
}: {
  readonly description?: string;
} = {}): ToolDefinition<Record<string, unknown>> {
  return defineTool<Record<string, unknown>>({
    name: UPDATE_PLAN_TOOL_NAME,
    description,
    parameters: {
      type: 'object',
      properties: {
        explanation: { type: 'string', description: 'Why the plan changed (optional).' },
        plan: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              step: { type: 'string' },
              status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] },
            },
            required: ['step', 'status'],
          },
        },
      },
      required: ['plan'],
    },
    execute: (args) => renderPlan(checkPlanUpdate(args)),
  });
}
