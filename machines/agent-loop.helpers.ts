/** Pure helpers of the loop machine: no I/O, no state. */

import { fromPromise } from 'xstate';
import type { MutationPoint } from '../src/compaction/types.js';
import { ContextOverflowError } from '../src/errors/context-overflow-error.js';
import { ModelError } from '../src/errors/model-error.js';
import { serializeError } from '../src/runtime/serialize-error.js';
import type { SerializedError } from '../src/runtime/telemetry-events.js';
import type { AgentLoopContext, FinishRunInput } from './agent-loop.types.js';

/** Placeholder for an actor the runtime must provide with `.provide({actors})`. */
export function notProvided<TOutput, TInput>(name: string) {
  return fromPromise<TOutput, TInput>(async () => {
    throw new Error(`agentLoopMachine: actor "${name}" was not provided`);
  });
}

export const DEFAULT_MAX_CONSECUTIVE_COMPACTIONS = 3;
export const DEFAULT_MAX_STEPS_PER_RUN = 50;

export function nextMutatorIndex(
  context: AgentLoopContext,
  point: MutationPoint,
  from: number,
): number {
  for (let index = from; index < context.mutators.length; index++) {
    if (context.mutators[index]?.points.includes(point)) return index;
  }
  return -1;
}

export function overflowError(context: AgentLoopContext, detail: string): SerializedError {
  return serializeError(
    new ContextOverflowError(
      `${detail} (consecutive compactions: ${context.consecutiveCompactions}, cap: ${context.maxConsecutiveCompactions})`,
    ),
  );
}

/** Provider errors the loop answers by compacting and retrying instead of failing. */
export function reactiveReason(error: unknown): 'overflow' | 'payload-too-large' | null {
  if (!ModelError.isInstance(error)) return null;
  if (error.kind === 'context_overflow') return 'overflow';
  if (error.kind === 'payload_too_large') return 'payload-too-large';
  return null;
}

/** The output of the actor whose completion caused the current transition, if any. */
export function outputOf<TOutput>(event: unknown): TOutput | undefined {
  return typeof event === 'object' && event !== null && 'output' in event
    ? (event as { output: TOutput }).output
    : undefined;
}

export function errorOf(event: unknown): unknown {
  return typeof event === 'object' && event !== null && 'error' in event
    ? (event as { error: unknown }).error
    : new Error('unknown failure');
}

export function finishInput({ context }: { context: AgentLoopContext }): FinishRunInput {
  return {
    ...runOf(context),
    outcome: context.finishing?.outcome ?? 'failed',
    steps: context.steps,
    error: context.finishing?.error ?? null,
  };
}

/** Why a mutation ended without output: aborted, or its actor failed. */
export function finishedWithoutOutput(event: unknown): Readonly<Record<string, unknown>> {
  const type =
    typeof event === 'object' && event !== null && 'type' in event ? event.type : 'unknown';
  return { interruptedBy: String(type) };
}

/** The session and run an actor input or telemetry event belongs to. */
export function runOf(context: AgentLoopContext) {
  return { sessionId: context.sessionId, runId: context.runId ?? '' };
}

/** The fields every telemetry event carries. */
export function base(context: AgentLoopContext) {
  return { ...runOf(context), at: Date.now() };
}

/** The run ids asked for by queued messages, one per queued message (see `queueRunIds`). */
export function queuedRunIds(context: AgentLoopContext): readonly (string | null)[] {
  return context.queueRunIds ?? context.queue.map(() => null);
}

/** A sender's run id when it is a usable one; anything else lets the machine make one. */
export function requestedRunId(runId: unknown): string | null {
  return typeof runId === 'string' && runId.length > 0 ? runId : null;
}
