/** Pure helpers of the loop machine: no I/O, no state, no values from the runtime. */

import { type AnyActorRef, fromPromise } from 'xstate';
import {
  type MutationPoint,
  type SerializedError,
  serializeError,
} from '../src/vocabulary/index.js';
import { loopFailure } from './agent-loop.errors.js';
import type {
  ActorInvocation,
  AgentLoopActorName,
  AgentLoopActorTypes,
  AgentLoopContext,
  CompactionStepInput,
  FinishRunInput,
} from './agent-loop.types.js';

/** Placeholder for an actor the runtime must provide with `.provide({actors})`. */
export function notProvided<Name extends AgentLoopActorName>(name: Name) {
  return fromPromise<AgentLoopActorTypes[Name]['output'], AgentLoopActorTypes[Name]['input']>(
    async () => {
      throw new Error(`agentLoopMachine: actor "${name}" was not provided`);
    },
  );
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

/** The `ContextOverflowError` a run ends with when compaction cannot bring it under budget. */
export function overflowError(context: AgentLoopContext, detail: string): SerializedError {
  return loopFailure(
    'ContextOverflowError',
    'context_overflow',
    `${detail} (consecutive compactions: ${context.consecutiveCompactions}, cap: ${context.maxConsecutiveCompactions})`,
  );
}

/** The `MutatorError` a run ends with when a mutation broke the tool-call protocol. */
export function invalidMutationError(context: AgentLoopContext): SerializedError {
  return loopFailure(
    'MutatorError',
    'mutator',
    `A mutation at ${context.point ?? 'unknown point'} produced a transcript that breaks the tool-call protocol; it was discarded`,
  );
}

export const abortedByHost: SerializedError = loopFailure(
  'AbortedError',
  'aborted',
  'The run was aborted by the host',
);

/**
 * The output of the named actor when `event` is its completion, else undefined: how guards,
 * actions and telemetry read a done event, typed by the machine's actor table.
 */
export function outputFrom<Name extends AgentLoopActorName>(
  event: { readonly type: string },
  name: Name,
): AgentLoopActorTypes[Name]['output'] | undefined {
  return event.type === `xstate.done.actor.${name}`
    ? (event as unknown as { readonly output: AgentLoopActorTypes[Name]['output'] }).output
    : undefined;
}

/** What an actor's failure event carries (`xstate.error.actor.*`), or a stand-in. */
export function errorOf(event: { readonly type: string }): unknown {
  return event.type.startsWith('xstate.error.actor.') && 'error' in event
    ? (event as { readonly error: unknown }).error
    : new Error(`no failure in ${event.type}`);
}

export function failureOf(event: { readonly type: string }): SerializedError {
  return serializeError(errorOf(event));
}

export function finishInput({ context, self }: InvocationArguments): FinishRunInput {
  return {
    ...invocationOf({ context, self }),
    outcome: context.finishing?.outcome ?? 'failed',
    steps: context.steps,
    error: context.finishing?.error ?? null,
  };
}

/** The input of the compaction steps (`compact`, `emergencyPrune`): why, which try, where. */
export function compactionInput({ context, self }: InvocationArguments): CompactionStepInput {
  return {
    ...invocationOf({ context, self }),
    reason: context.compactionReason ?? 'threshold',
    attempt: context.consecutiveCompactions,
    point: context.point ?? 'BeforeInference',
  };
}

/** Why a mutation ended without output: aborted, or its actor failed. */
export function finishedWithoutOutput(event: {
  readonly type: string;
}): Readonly<Record<string, unknown>> {
  return { interruptedBy: event.type };
}

/** The session and run an actor input or telemetry event belongs to. */
export function runOf(context: AgentLoopContext) {
  return { sessionId: context.sessionId, runId: context.runId ?? '' };
}

/** What an invoke's input mapper is given that the invocation needs: context, and the loop. */
export interface InvocationArguments {
  readonly context: AgentLoopContext;
  readonly self: AnyActorRef;
}

/** The part of every invoked actor's input that says which run and which loop it works for. */
export function invocationOf({ context, self }: InvocationArguments): ActorInvocation {
  return { ...runOf(context), loop: self };
}

/** The fields every telemetry event carries; `at` is when the event is emitted. */
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

/** The id of the next run: the one its sender chose, else one made from the instance and count. */
export function nextRunId(context: AgentLoopContext): string {
  const number = context.runs + 1;
  return (
    queuedRunIds(context)[0] ??
    (context.instance === undefined
      ? `${context.sessionId}:run-${number}`
      : `${context.sessionId}:run-${context.instance}-${number}`)
  );
}
