import type { RunToolsInput, RunToolsOutput } from '../../../machines/agent-loop.types.js';
import type { TelemetryEvent } from '../../events/telemetry-events.js';
import { executeToolCalls } from '../../tools/execute-tool-calls.js';
import { createToolRegistry, type ToolRegistry } from '../../tools/tool-registry.js';
import type { AnyToolDefinition } from '../../tools/types.js';
import { forward, loopActor } from './loop-actor-context.js';

/** Runs the open tool calls concurrently and logs their results. */
export const runToolsActor = loopActor<RunToolsOutput, RunToolsInput>(
  async ({ session, tools, toolTimeoutMs, maxParallelTools }, { input, signal }) => {
    const telemetry = (event: TelemetryEvent) => forward(input.loop, event);
    const calls = session.pendingToolCalls;
    const results = await executeToolCalls({
      tools: registryOf(tools),
      calls,
      signal,
      maxConcurrency: maxParallelTools,
      ...(toolTimeoutMs === undefined ? {} : { defaultTimeoutMs: toolTimeoutMs }),
      onCallStarted: ({ callId, toolName }) =>
        telemetry({
          type: 'ToolCallStarted',
          sessionId: input.sessionId,
          runId: input.runId,
          at: Date.now(),
          callId,
          toolName,
        }),
      onCallFinished: ({ callId, toolName, isError, durationMs, outputLength }) =>
        telemetry({
          type: 'ToolCallFinished',
          sessionId: input.sessionId,
          runId: input.runId,
          at: Date.now(),
          callId,
          toolName,
          isError,
          durationMs,
          outputLength,
        }),
    });
    // When aborted, the abort path answers open calls itself; writing here would race it.
    if (signal.aborted) throw signal.reason;
    await session.appendForRun(input.runId, [
      { type: 'items-appended', runId: input.runId, items: results },
    ]);
    return { results: results.length, errors: results.filter((result) => result.isError).length };
  },
);

/**
 * A loop's tools are fixed when it is made (and validated then), so their registry is built once
 * per tool list instead of at every step.
 */
const registries = new WeakMap<readonly AnyToolDefinition[], ToolRegistry>();

function registryOf(tools: readonly AnyToolDefinition[]): ToolRegistry {
  let registry = registries.get(tools);
  if (registry === undefined) {
    registry = createToolRegistry(tools);
    registries.set(tools, registry);
  }
  return registry;
}
