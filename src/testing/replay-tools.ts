import { defineTool } from '../tools/define-tool.js';
import type { ToolDefinition } from '../tools/types.js';
import type { RecordedOutput } from './replay-plan.js';

/**
 * One tool per recorded tool name, each answering a call with the output recorded for that
 * call id. The schema accepts any object: the recorded arguments are replayed as they were.
 * A recorded failure is thrown, so the session records it as an error result as the recording did.
 *
 * @example
 * ```ts
 * import { buildReplayPlan, createReplayTools } from 'loopkeeper/testing';
 * import { fromChatMessages } from 'loopkeeper';
 *
 * const plan = buildReplayPlan({
 *   recordings: [{ name: 'recorded', items: fromChatMessages([{ role: 'user', content: 'Hi' }]) }],
 * });
 * // Tools that answer each recorded call with the output it got when it was recorded.
 * const tools = createReplayTools({ toolNames: plan.toolNames, outputs: plan.outputs });
 * ```
 */
export function createReplayTools({
  toolNames,
  outputs,
}: {
  toolNames: readonly string[];
  outputs: ReadonlyMap<string, RecordedOutput>;
}): ToolDefinition[] {
  return toolNames.map((name) =>
    defineTool({
      name,
      description: `Replays the recorded output of the "${name}" tool.`,
      parameters: { type: 'object' },
      execute: (_args, { callId }) => {
        const output = outputs.get(callId);
        if (output === undefined) {
          // Thrown inside a tool, so the loop turns it into an error result the model reads.
          throw new Error(`No recorded output for call ${callId}`);
        }
        if (output.isError) throw new Error(output.content);
        return output.content;
      },
    }),
  );
}
