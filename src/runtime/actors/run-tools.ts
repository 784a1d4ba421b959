import type { RunToolsInput, RunToolsOutput } from '../../../machines/agent-loop.types.js';
import type { TelemetryEvent } from '../../events/telemetry-events.js';
import type { LoggedToolCall, NewSessionEvent } from '../../log/events.js';
import { hashToolArguments } from '../../tools/arguments-hash.js';
import { executeToolCalls } from '../../tools/execute-tool-calls.js';
import type { ToolRegistry } from '../../tools/tool-registry.js';
import { createItemId } from '../../transcript/ids.js';
import type { ToolCall, ToolResultItem } from '../../transcript/types.js';
import type { LoopSession } from '../loop-session.js';
import { forward, loopActor } from './loop-actor-context.js';

/**
 * Runs the open tool calls concurrently. Before they run, the log records which were started
 * (`tool-calls-started`, with each call's arguments hash); each result is logged as soon as its
 * call finishes, so a crash loses no finished call. Calls that must not run get an error result
 * instead: a denied call, an approved call whose arguments no longer match what was approved,
 * and, when a run is resumed, a non-idempotent call a crash interrupted.
 */
export const runToolsActor = loopActor<RunToolsOutput, RunToolsInput>(
  async ({ session, registry, toolTimeoutMs, maxParallelTools }, { input, signal }) => {
    const telemetry = (event: TelemetryEvent) => forward(input.loop, event);
    const { runId } = input;
    const toRun: ToolCall[] = [];
    const started: LoggedToolCall[] = [];
    const refused: ToolResultItem[] = [];
    for (const call of session.pendingToolCalls) {
      // Hashed once: the approval check and the started marker both use it.
      const argumentsHash = hashToolArguments(call.arguments);
      const refusal = refusalOf({ session, registry, call, argumentsHash });
      if (refusal === undefined) {
        toRun.push(call);
        started.push({ callId: call.id, argumentsHash });
      } else refused.push(errorResult(call, refusal));
    }
    const before: NewSessionEvent[] = [];
    if (refused.length > 0) before.push({ type: 'items-appended', runId, items: refused });
    if (started.length > 0) before.push({ type: 'tool-calls-started', runId, calls: started });
    if (signal.aborted) throw signal.reason;
    if (before.length > 0) await session.appendForRun(runId, before);
    // Results are logged as their calls finish; those that finish while an append is waiting
    // to start join it, so a batch of quick calls costs one write, not one each.
    let appends: Promise<unknown> = Promise.resolve();
    let batch: ToolResultItem[] | null = null;
    const logResult = (result: ToolResultItem): void => {
      // When aborted, the abort path answers open calls itself; writing here would race it.
      if (signal.aborted) return;
      if (batch !== null) {
        batch.push(result);
        return;
      }
      const items = [result];
      batch = items;
      appends = appends.then(() => {
        batch = null;
        return session.appendForRun(runId, [{ type: 'items-appended', runId, items }]);
      });
      // A failed append fails the step at `await appends` below, once every call has settled;
      // until then it must not count as an unhandled rejection.
      appends.catch(() => undefined);
    };
    const results = await executeToolCalls({
      tools: registry,
      calls: toRun,
      signal,
      maxConcurrency: maxParallelTools,
      ...(toolTimeoutMs === undefined ? {} : { defaultTimeoutMs: toolTimeoutMs }),
      onCallStarted: ({ callId, toolName }) =>
        telemetry({
          type: 'ToolCallStarted',
          sessionId: input.sessionId,
          runId,
          at: Date.now(),
          callId,
          toolName,
        }),
      onCallProgress: ({ callId, toolName, data }) =>
        telemetry({
          type: 'ToolCallProgress',
          sessionId: input.sessionId,
          runId,
          at: Date.now(),
          callId,
          toolName,
          data,
        }),
      onCallFinished: ({ callId, toolName, isError, durationMs, outputLength }) =>
        telemetry({
          type: 'ToolCallFinished',
          sessionId: input.sessionId,
          runId,
          at: Date.now(),
          callId,
          toolName,
          isError,
          durationMs,
          outputLength,
        }),
      onResult: logResult,
    });
    await appends;
    if (signal.aborted) throw signal.reason;
    const all = [...refused, ...results];
    return { results: all.length, errors: all.filter((result) => result.isError).length };
  },
);

/** Why a call must not run now, as the model will read it; undefined when it may run. */
function refusalOf({
  session,
  registry,
  call,
  argumentsHash,
}: {
  readonly session: LoopSession;
  readonly registry: ToolRegistry;
  readonly call: ToolCall;
  readonly argumentsHash: string;
}): string | undefined {
  const { progress } = session;
  if (progress.request(call.id) !== undefined) {
    const decision = progress.decision(call.id);
    if (decision === undefined) {
      return 'This call needed approval and no decision was recorded, so it did not run.';
    }
    if (!decision.approved) {
      const why =
        decision.reason === undefined || decision.reason === '' ? '' : `: ${decision.reason}`;
      return `This call was not approved${why}. It did not run.`;
    }
    if (decision.argumentsHash !== argumentsHash) {
      return 'The arguments of this call are not the ones that were approved, so it did not run.';
    }
  }
  if (progress.startedHash(call.id) !== undefined && registry.get(call.name)?.idempotent !== true) {
    return 'This call was started before the run was interrupted (its process stopped) and its result was not recorded, so it may or may not have taken effect. It was not run again.';
  }
  return undefined;
}

function errorResult(call: ToolCall, message: string): ToolResultItem {
  return {
    kind: 'toolResult',
    id: createItemId('result'),
    callId: call.id,
    toolName: call.name,
    content: `[loopkeeper] ${message}`,
    isError: true,
  };
}
