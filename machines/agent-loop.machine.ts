import { assign, emit, fromPromise, setup } from 'xstate';
import type { MutationPoint } from '../src/compaction/types.js';
import { ContextOverflowError } from '../src/errors/context-overflow-error.js';
import { ModelError } from '../src/errors/model-error.js';
import { MutatorError } from '../src/errors/mutator-error.js';
import { serializeError } from '../src/runtime/serialize-error.js';
import type { SerializedError, TelemetryEvent } from '../src/runtime/telemetry-events.js';
import type {
  AgentLoopContext,
  AgentLoopEvent,
  AgentLoopInput,
  BeginRunInput,
  CallModelInput,
  CallModelOutput,
  CheckBudgetInput,
  CheckBudgetOutput,
  CompactInput,
  CompactOutput,
  EmergencyPruneOutput,
  FinishRunInput,
  RunMutatorInput,
  RunMutatorOutput,
  RunToolsInput,
  RunToolsOutput,
} from './agent-loop.types.js';

export type * from './agent-loop.types.js';

/** Placeholder for an actor the runtime must provide with `.provide({actors})`. */
function notProvided<TOutput, TInput>(name: string) {
  return fromPromise<TOutput, TInput>(async () => {
    throw new Error(`agentLoopMachine: actor "${name}" was not provided`);
  });
}

const DEFAULT_MAX_CONSECUTIVE_COMPACTIONS = 3;
const DEFAULT_MAX_STEPS_PER_RUN = 50;

function nextMutatorIndex(context: AgentLoopContext, point: MutationPoint, from: number): number {
  for (let index = from; index < context.mutators.length; index++) {
    if (context.mutators[index]?.points.includes(point)) return index;
  }
  return -1;
}

function overflowError(context: AgentLoopContext, detail: string): SerializedError {
  return serializeError(
    new ContextOverflowError(
      `${detail} (consecutive compactions: ${context.consecutiveCompactions}, cap: ${context.maxConsecutiveCompactions})`,
    ),
  );
}

/** Provider errors the loop answers by compacting and retrying instead of failing. */
function reactiveReason(error: unknown): 'overflow' | 'payload-too-large' | null {
  if (!ModelError.isInstance(error)) return null;
  if (error.kind === 'context_overflow') return 'overflow';
  if (error.kind === 'payload_too_large') return 'payload-too-large';
  return null;
}

/** The output of the actor whose completion caused the current transition, if any. */
function outputOf<TOutput>(event: unknown): TOutput | undefined {
  return typeof event === 'object' && event !== null && 'output' in event
    ? (event as { output: TOutput }).output
    : undefined;
}

function errorOf(event: unknown): unknown {
  return typeof event === 'object' && event !== null && 'error' in event
    ? (event as { error: unknown }).error
    : new Error('unknown failure');
}

function finishInput({ context }: { context: AgentLoopContext }): FinishRunInput {
  return {
    sessionId: context.sessionId,
    runId: context.runId ?? '',
    outcome: context.finishing?.outcome ?? 'failed',
    steps: context.steps,
    error: context.finishing?.error ?? null,
  };
}

/** Why a mutation ended without output: aborted, or its actor failed. */
function finishedWithoutOutput(event: unknown): Readonly<Record<string, unknown>> {
  const type =
    typeof event === 'object' && event !== null && 'type' in event ? event.type : 'unknown';
  return { interruptedBy: String(type) };
}

function base(context: AgentLoopContext) {
  return { sessionId: context.sessionId, runId: context.runId ?? '', at: Date.now() };
}

/**
 * The agent loop. It declares what happens and in which order; every piece of I/O (the model,
 * tools, mutators, the compactor, the session store) is a named actor provided by the runtime.
 * Context holds only small serializable facts, so the definition can be traversed by
 * `xstate/graph` and persisted with `getPersistedSnapshot()`.
 */
export const agentLoopMachine = setup({
  types: {
    context: {} as AgentLoopContext,
    events: {} as AgentLoopEvent,
    input: {} as AgentLoopInput,
    emitted: {} as TelemetryEvent,
  },
  actors: {
    beginRun: notProvided<void, BeginRunInput>('beginRun'),
    callModel: notProvided<CallModelOutput, CallModelInput>('callModel'),
    runTools: notProvided<RunToolsOutput, RunToolsInput>('runTools'),
    runMutator: notProvided<RunMutatorOutput, RunMutatorInput>('runMutator'),
    checkBudget: notProvided<CheckBudgetOutput, CheckBudgetInput>('checkBudget'),
    compact: notProvided<CompactOutput, CompactInput>('compact'),
    emergencyPrune: notProvided<EmergencyPruneOutput, CompactInput>('emergencyPrune'),
    finishRun: notProvided<void, FinishRunInput>('finishRun'),
    abortRun: notProvided<void, FinishRunInput>('abortRun'),
  },
  guards: {
    modelCalledTools: ({ event }) => outputOf<CallModelOutput>(event)?.kind === 'toolCalls',
    providerAskedToCompact: ({ event }) => reactiveReason(errorOf(event)) !== null,
    mutationInvalid: ({ event }) => outputOf<RunMutatorOutput>(event)?.valid === false,
    withinBudget: ({ event }) => outputOf<CheckBudgetOutput>(event)?.over === false,
    resultInvalid: ({ event }) =>
      outputOf<CompactOutput | EmergencyPruneOutput>(event)?.status === 'invalid',
    compactionEffective: ({ event }) => outputOf<CompactOutput>(event)?.status === 'effective',
    emergencyPruneFits: ({ event }) => outputOf<EmergencyPruneOutput>(event)?.status === 'fits',
    hasQueuedMessage: ({ context }) => context.queue.length > 0,
    stepLimitReached: ({ context }) => context.steps >= context.maxStepsPerRun,
    hasMutatorAt: ({ context }, params: { point: MutationPoint }) =>
      nextMutatorIndex(context, params.point, 0) >= 0,
    hasNextMutator: ({ context }) =>
      context.point !== null &&
      nextMutatorIndex(context, context.point, context.mutatorIndex + 1) >= 0,
    turnEnded: ({ context }) => context.point === 'AfterTurnEnded',
    canCompact: ({ context }) =>
      context.compactor !== null &&
      context.consecutiveCompactions < context.maxConsecutiveCompactions,
    // The emergency prune is the last resort after the final allowed compaction, hence `<=`.
    canEmergencyPrune: ({ context }) =>
      context.compactor !== null &&
      context.consecutiveCompactions <= context.maxConsecutiveCompactions,
  },
  actions: {
    enqueueMessage: assign({
      queue: ({ context, event }) =>
        event.type === 'user.message' ? [...context.queue, event.content] : context.queue,
    }),
    startRun: assign(({ context }) => ({
      message: context.queue[0] ?? null,
      queue: context.queue.slice(1),
      runId: `${context.sessionId}:run-${context.runs + 1}-${Date.now().toString(36)}`,
      runs: context.runs + 1,
      steps: 0,
      consecutiveCompactions: 0,
      point: null,
      mutatorIndex: 0,
      compactionReason: null,
      lastError: null,
      finishing: null,
    })),
    emitRunStarted: emit(({ context }) => ({
      type: 'RunStarted' as const,
      sessionId: context.sessionId,
      runId: context.runId ?? '',
      at: Date.now(),
    })),
    enterMutationPhase: assign(({ context }, params: { point: MutationPoint }) => ({
      point: params.point,
      mutatorIndex: nextMutatorIndex(context, params.point, 0),
    })),
    setPoint: assign((_, params: { point: MutationPoint }) => ({ point: params.point })),
    advanceMutator: assign(({ context }) => ({
      mutatorIndex:
        context.point === null
          ? -1
          : nextMutatorIndex(context, context.point, context.mutatorIndex + 1),
    })),
    emitMutationStarted: emit(({ context }) => ({
      type: 'MutationStarted' as const,
      sessionId: context.sessionId,
      runId: context.runId ?? '',
      at: Date.now(),
      mutator: context.mutators[context.mutatorIndex]?.name ?? '',
      point: context.point ?? 'AfterToolResult',
    })),
    finishCompleted: assign({ finishing: { outcome: 'completed', error: null } }),
    finishStepLimit: assign({ finishing: { outcome: 'step-limit', error: null } }),
    failOverCap: assign(({ context }) => ({
      finishing: {
        outcome: 'failed' as const,
        error: overflowError(
          context,
          context.compactor === null
            ? 'The transcript is over the context budget and the loop has no compactor'
            : 'The transcript is over the context budget and no further compaction is allowed',
        ),
      },
    })),
    failTooLarge: assign(({ context }) => ({
      finishing: {
        outcome: 'failed' as const,
        error: overflowError(
          context,
          'Even the latest user turn alone does not fit the context budget',
        ),
      },
    })),
    failWithError: assign(({ event }) => ({
      finishing: { outcome: 'failed' as const, error: serializeError(errorOf(event)) },
    })),
    failInvalidMutation: assign(({ context }) => ({
      finishing: {
        outcome: 'failed' as const,
        error: serializeError(
          new MutatorError(
            `A mutation at ${context.point ?? 'unknown point'} produced a transcript that breaks the tool-call protocol; it was discarded`,
          ),
        ),
      },
    })),
    countCompaction: assign({
      consecutiveCompactions: ({ context }) => context.consecutiveCompactions + 1,
    }),
    forwardTelemetry: emit(({ event }) => (event as { event: TelemetryEvent }).event),
    inferenceSucceeded: assign(({ event }) => ({
      consecutiveCompactions: 0,
      lastUsage: outputOf<CallModelOutput>(event)?.usage ?? null,
    })),
    emitInferenceFinished: emit(({ context, event }) => {
      const output = outputOf<CallModelOutput>(event);
      return {
        type: 'InferenceFinished' as const,
        ...base(context),
        step: context.steps,
        usage: output?.usage ?? undefined,
        toolCalls: output?.toolCalls ?? 0,
        durationMs: output?.durationMs ?? 0,
      };
    }),
    emitInferenceFailed: emit(({ context, event }) => ({
      type: 'InferenceFailed' as const,
      ...base(context),
      step: context.steps,
      error: serializeError(errorOf(event)),
    })),
    emitMutationFinished: emit(({ context, event }) => {
      const output = outputOf<RunMutatorOutput>(event);
      return {
        type: 'MutationFinished' as const,
        ...base(context),
        mutator: context.mutators[context.mutatorIndex]?.name ?? '',
        point: context.point ?? 'AfterToolResult',
        dirty: output?.dirty === true && output.valid,
        metadata: output?.metadata ?? finishedWithoutOutput(event),
      };
    }),
    emitCompactorMutationStarted: emit(({ context }) => ({
      type: 'MutationStarted' as const,
      ...base(context),
      mutator: context.compactor ?? 'compactor',
      point: context.point ?? 'BeforeInference',
    })),
    emitCompactorMutationFinished: emit(({ context, event }) => {
      const output = outputOf<CompactOutput>(event);
      return {
        type: 'MutationFinished' as const,
        ...base(context),
        mutator: context.compactor ?? 'compactor',
        point: context.point ?? 'BeforeInference',
        dirty: output !== undefined && output.status !== 'invalid',
        metadata: output?.metadata ?? finishedWithoutOutput(event),
      };
    }),
    emitEmergencyMutationStarted: emit(({ context }) => ({
      type: 'MutationStarted' as const,
      ...base(context),
      mutator: 'emergencyPrune',
      point: context.point ?? 'BeforeInference',
    })),
    emitEmergencyMutationFinished: emit(({ context, event }) => {
      const output = outputOf<EmergencyPruneOutput>(event);
      return {
        type: 'MutationFinished' as const,
        ...base(context),
        mutator: 'emergencyPrune',
        point: context.point ?? 'BeforeInference',
        dirty: output !== undefined && output.status !== 'invalid',
        metadata: output?.metadata ?? finishedWithoutOutput(event),
      };
    }),
    emitCompactionFinished: emit(({ context, event }) => {
      const output = outputOf<CompactOutput>(event);
      return {
        type: 'CompactionFinished' as const,
        ...base(context),
        reason: context.compactionReason ?? 'threshold',
        tier: output?.tier ?? 'structural',
        strategies: output?.strategies ?? [],
        tokensBefore: output?.tokensBefore ?? 0,
        tokensAfter: output?.tokensAfter ?? 0,
        effective: output?.status === 'effective',
        durationMs: output?.durationMs ?? 0,
      };
    }),
    emitCompactionFailed: emit(({ context, event }) => ({
      type: 'CompactionFailed' as const,
      ...base(context),
      reason: context.compactionReason ?? 'threshold',
      error: serializeError(errorOf(event)),
    })),
    emitEmergencyPruneApplied: emit(({ context, event }) => {
      const output = outputOf<EmergencyPruneOutput>(event);
      return {
        type: 'EmergencyPruneApplied' as const,
        ...base(context),
        tokensBefore: output?.tokensBefore ?? 0,
        tokensAfter: output?.tokensAfter ?? 0,
        fits: output?.status === 'fits',
      };
    }),
    recordOutcome: assign(({ context }) => ({
      lastOutcome: context.finishing?.outcome ?? 'failed',
      lastError: context.finishing?.error ?? null,
      finishing: null,
      point: null,
      compactionReason: null,
    })),
    emitRunFinished: emit(({ context }) => ({
      type: 'RunFinished' as const,
      ...base(context),
      outcome: context.finishing?.outcome ?? 'failed',
      steps: context.steps,
      error: context.finishing?.error ?? undefined,
    })),
  },
}).createMachine({
  id: 'agentLoop',
  context: ({ input }) => ({
    sessionId: input.sessionId,
    maxConsecutiveCompactions:
      input.maxConsecutiveCompactions ?? DEFAULT_MAX_CONSECUTIVE_COMPACTIONS,
    maxStepsPerRun: input.maxStepsPerRun ?? DEFAULT_MAX_STEPS_PER_RUN,
    mutators: input.mutators ?? [],
    compactor: input.compactor ?? null,
    queue: [],
    message: null,
    runId: null,
    runs: 0,
    steps: 0,
    consecutiveCompactions: 0,
    point: null,
    mutatorIndex: 0,
    compactionReason: null,
    lastUsage: null,
    lastError: null,
    lastOutcome: null,
    finishing: null,
  }),
  initial: 'idle',
  on: {
    'user.message': { actions: 'enqueueMessage' },
    'loop.telemetry': { actions: 'forwardTelemetry' },
  },
  states: {
    idle: {
      always: { guard: 'hasQueuedMessage', target: 'starting', actions: 'startRun' },
      on: { close: 'closed' },
    },
    starting: {
      entry: 'emitRunStarted',
      invoke: {
        id: 'beginRun',
        src: 'beginRun',
        input: ({ context }) => ({
          sessionId: context.sessionId,
          runId: context.runId ?? '',
          content: context.message ?? '',
        }),
        onDone: [
          {
            guard: { type: 'hasMutatorAt', params: { point: 'BeforeInference' } },
            target: 'mutating',
            actions: [
              assign({ message: null }),
              { type: 'enterMutationPhase', params: { point: 'BeforeInference' } },
            ],
          },
          {
            target: 'checkingBudget',
            actions: [
              assign({ message: null }),
              { type: 'setPoint', params: { point: 'BeforeInference' } },
            ],
          },
        ],
        onError: { target: 'failing', actions: 'failWithError' },
      },
      on: { abort: 'aborting' },
    },
    inferring: {
      // InferenceStarted comes from the callModel actor, which knows the request's token estimate.
      entry: assign({ steps: ({ context }) => context.steps + 1 }),
      invoke: {
        id: 'callModel',
        src: 'callModel',
        input: ({ context }) => ({
          sessionId: context.sessionId,
          runId: context.runId ?? '',
          step: context.steps,
        }),
        onDone: [
          {
            guard: 'modelCalledTools',
            target: 'toolResult',
            actions: ['inferenceSucceeded', 'emitInferenceFinished'],
          },
          {
            guard: { type: 'hasMutatorAt', params: { point: 'AfterTurnEnded' } },
            target: 'mutating',
            actions: [
              'inferenceSucceeded',
              'emitInferenceFinished',
              { type: 'enterMutationPhase', params: { point: 'AfterTurnEnded' } },
            ],
          },
          {
            target: 'checkingBudget',
            actions: [
              'inferenceSucceeded',
              'emitInferenceFinished',
              { type: 'setPoint', params: { point: 'AfterTurnEnded' } },
            ],
          },
        ],
        onError: [
          {
            guard: 'providerAskedToCompact',
            target: 'reacting',
            actions: [
              'emitInferenceFailed',
              assign({ compactionReason: ({ event }) => reactiveReason(event.error) }),
            ],
          },
          { target: 'failing', actions: ['emitInferenceFailed', 'failWithError'] },
        ],
      },
      on: { abort: 'aborting' },
    },
    /** A provider overflow or 413: compact and retry, under the same cap as proactive compaction. */
    reacting: {
      always: [
        { guard: 'canCompact', target: 'compacting' },
        { guard: 'canEmergencyPrune', target: 'emergencyPruning' },
        { target: 'failing', actions: 'failOverCap' },
      ],
    },
    toolResult: {
      invoke: {
        id: 'runTools',
        src: 'runTools',
        input: ({ context }) => ({ sessionId: context.sessionId, runId: context.runId ?? '' }),
        onDone: [
          {
            guard: { type: 'hasMutatorAt', params: { point: 'AfterToolResult' } },
            target: 'mutating',
            actions: { type: 'enterMutationPhase', params: { point: 'AfterToolResult' } },
          },
          {
            target: 'checkingBudget',
            actions: { type: 'setPoint', params: { point: 'AfterToolResult' } },
          },
        ],
        onError: { target: 'failing', actions: 'failWithError' },
      },
      on: { abort: 'aborting' },
    },
    mutating: {
      entry: 'emitMutationStarted',
      exit: 'emitMutationFinished',
      invoke: {
        id: 'runMutator',
        src: 'runMutator',
        input: ({ context }) => ({
          sessionId: context.sessionId,
          runId: context.runId ?? '',
          mutator: context.mutators[context.mutatorIndex]?.name ?? '',
          point: context.point ?? 'AfterToolResult',
        }),
        onDone: [
          {
            guard: 'mutationInvalid',
            target: 'failing',
            actions: 'failInvalidMutation',
          },
          { guard: 'hasNextMutator', target: 'mutating', reenter: true, actions: 'advanceMutator' },
          { target: 'checkingBudget' },
        ],
        onError: { target: 'failing', actions: 'failWithError' },
      },
      on: { abort: 'aborting' },
    },
    checkingBudget: {
      invoke: {
        id: 'checkBudget',
        src: 'checkBudget',
        input: ({ context }) => ({
          sessionId: context.sessionId,
          runId: context.runId ?? '',
          point: context.point ?? 'BeforeInference',
        }),
        onDone: [
          { guard: 'withinBudget', target: 'continuing' },
          {
            guard: 'canCompact',
            target: 'compacting',
            actions: assign({ compactionReason: 'threshold' }),
          },
          {
            guard: 'canEmergencyPrune',
            target: 'emergencyPruning',
            actions: assign({ compactionReason: 'threshold' }),
          },
          { target: 'failing', actions: 'failOverCap' },
        ],
        onError: { target: 'failing', actions: 'failWithError' },
      },
      on: { abort: 'aborting' },
    },
    /** The transcript is within budget: end the turn, or go on to the next inference. */
    continuing: {
      always: [
        { guard: 'turnEnded', target: 'finishing', actions: 'finishCompleted' },
        { guard: 'stepLimitReached', target: 'finishing', actions: 'finishStepLimit' },
        { target: 'inferring' },
      ],
    },
    compacting: {
      entry: [
        'countCompaction',
        emit(({ context }) => ({
          type: 'CompactionStarted' as const,
          sessionId: context.sessionId,
          runId: context.runId ?? '',
          at: Date.now(),
          reason: context.compactionReason ?? 'threshold',
          attempt: context.consecutiveCompactions,
        })),
        'emitCompactorMutationStarted',
      ],
      exit: 'emitCompactorMutationFinished',
      invoke: {
        id: 'compact',
        src: 'compact',
        input: ({ context }) => ({
          sessionId: context.sessionId,
          runId: context.runId ?? '',
          reason: context.compactionReason ?? 'threshold',
          attempt: context.consecutiveCompactions,
        }),
        onDone: [
          {
            guard: 'resultInvalid',
            target: 'failing',
            actions: ['emitCompactionFinished', 'failInvalidMutation'],
          },
          {
            guard: 'compactionEffective',
            target: 'continuing',
            actions: 'emitCompactionFinished',
          },
          // Still over the trigger: an ineffective compaction goes straight to the emergency prune.
          {
            guard: 'canEmergencyPrune',
            target: 'emergencyPruning',
            actions: 'emitCompactionFinished',
          },
          { target: 'failing', actions: ['emitCompactionFinished', 'failOverCap'] },
        ],
        onError: [
          {
            guard: 'canEmergencyPrune',
            target: 'emergencyPruning',
            actions: 'emitCompactionFailed',
          },
          { target: 'failing', actions: ['emitCompactionFailed', 'failOverCap'] },
        ],
      },
      on: { abort: 'aborting' },
    },
    emergencyPruning: {
      entry: ['countCompaction', 'emitEmergencyMutationStarted'],
      exit: 'emitEmergencyMutationFinished',
      invoke: {
        id: 'emergencyPrune',
        src: 'emergencyPrune',
        input: ({ context }) => ({
          sessionId: context.sessionId,
          runId: context.runId ?? '',
          reason: context.compactionReason ?? 'threshold',
          attempt: context.consecutiveCompactions,
        }),
        onDone: [
          {
            guard: 'resultInvalid',
            target: 'failing',
            actions: 'failInvalidMutation',
          },
          {
            guard: 'emergencyPruneFits',
            target: 'continuing',
            actions: 'emitEmergencyPruneApplied',
          },
          { target: 'failing', actions: ['emitEmergencyPruneApplied', 'failTooLarge'] },
        ],
        onError: { target: 'failing', actions: 'failWithError' },
      },
      on: { abort: 'aborting' },
    },
    finishing: {
      invoke: {
        id: 'finishRun',
        src: 'finishRun',
        input: finishInput,
        onDone: { target: 'idle', actions: 'recordOutcome' },
        onError: { target: 'idle', actions: 'recordOutcome' },
      },
      exit: 'emitRunFinished',
    },
    failing: {
      invoke: {
        id: 'finishRun',
        src: 'finishRun',
        input: finishInput,
        onDone: { target: 'idle', actions: 'recordOutcome' },
        onError: { target: 'idle', actions: 'recordOutcome' },
      },
      exit: 'emitRunFinished',
    },
    aborting: {
      entry: assign({
        finishing: {
          outcome: 'aborted' as const,
          error: {
            name: 'AbortedError',
            code: 'aborted',
            message: 'The run was aborted by the host',
          },
        },
        message: null,
      }),
      invoke: {
        id: 'abortRun',
        src: 'abortRun',
        input: finishInput,
        onDone: { target: 'idle', actions: 'recordOutcome' },
        onError: { target: 'idle', actions: 'recordOutcome' },
      },
      exit: 'emitRunFinished',
    },
    closed: { type: 'final' },
  },
});
