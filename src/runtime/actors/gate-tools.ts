import type { ActorInvocation, GateToolsOutput } from '../../../machines/agent-loop.types.js';
import { ToolError } from '../../errors/tool-error.js';
import type { ApprovalRequest } from '../../log/events.js';
import { hashToolArguments } from '../../tools/arguments-hash.js';
import type { ToolRegistry } from '../../tools/tool-registry.js';
import type { ToolCall } from '../../transcript/types.js';
import { loopActor } from './loop-actor-context.js';
import { withTypedFailures } from './typed-failure.js';

/**
 * Asks each open call's tool whether it needs a person's approval, logs one
 * `approval-requested` for the calls that newly do, and returns every call of the step that
 * still waits for a decision (a resumed run finds its earlier requests in the log).
 */
export const gateToolsActor = loopActor<GateToolsOutput, ActorInvocation>(
  ({ session, registry }, { input, signal }) =>
    withTypedFailures(
      async () => {
        const { progress } = session;
        const requested: ApprovalRequest[] = [];
        for (const call of session.pendingToolCalls) {
          if (progress.request(call.id) !== undefined || progress.startedHash(call.id)) continue;
          if (await needsApproval({ registry, call, ...input })) {
            requested.push({
              callId: call.id,
              toolName: call.name,
              arguments: call.arguments,
              argumentsHash: hashToolArguments(call.arguments),
            });
          }
        }
        if (signal.aborted) throw signal.reason;
        if (requested.length > 0) {
          await session.appendForRun(input.runId, [
            { type: 'approval-requested', runId: input.runId, calls: requested },
          ]);
        }
        return { awaiting: progress.waiting };
      },
      (description, cause) =>
        new ToolError(`Checking which tool calls need approval failed: ${description}`, { cause }),
    ),
);

/**
 * A tool's answer to "does this call need approval?". A call the runner will refuse anyway
 * (unknown tool, arguments that are not a JSON object) needs none; a `needsApproval` function
 * that throws or answers something other than a boolean counts as yes: asking is the safe side.
 */
async function needsApproval({
  registry,
  call,
  sessionId,
  runId,
}: {
  readonly registry: ToolRegistry;
  readonly call: ToolCall;
  readonly sessionId: string;
  readonly runId: string;
}): Promise<boolean> {
  const rule = registry.get(call.name)?.needsApproval;
  if (rule === undefined || rule === false) return false;
  if (rule === true) return true;
  let args: unknown;
  try {
    args = JSON.parse(call.arguments === '' ? '{}' : call.arguments);
  } catch {
    return false;
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return false;
  try {
    const answer = await (rule as (args: unknown, context: unknown) => unknown)(args, {
      callId: call.id,
      toolName: call.name,
      sessionId,
      runId,
    });
    return answer !== false;
  } catch {
    return true;
  }
}
