import { assign, emit, setup } from 'xstate';
import type { MutationPoint } from '../src/compaction/types.js';
import { MutatorError } from '../src/errors/mutator-error.js';
import { serializeError } from '../src/runtime/serialize-error.js';
import type { TelemetryEvent } from '../src/runtime/telemetry-events.js';
import {
  DEFAULT_MAX_CONSECUTIVE_COMPACTIONS,
  DEFAULT_MAX_STEPS_PER_RUN,
  errorOf,
  finishInput,
  nextMutatorIndex,
  notProvided,
  outputOf,
  overflowError,
  queuedRunIds,
  reactiveReason,
  requestedRunId,
  runOf,
} from './agent-loop.helpers.js';

import {
  compactionFailedEvent,
  compactionFinishedEvent,
  compactionStartedEvent,
  compactorMutationFinishedEvent,
  compactorMutationStartedEvent,
  emergencyMutationFinishedEvent,
  emergencyMutationStartedEvent,
  emergencyPruneAppliedEvent,
  inferenceFailedEvent,
  inferenceFinishedEvent,
  mutationFinishedEvent,
  mutationStartedEvent,
  runFinishedEvent,
  runStartedEvent,
} from './agent-loop.telemetry.js';
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
    enqueueMessage: assign(({ context, event }) =>
      event.type === 'user.message'
        ? {
            queue: [...context.queue, event.content],
            queueRunIds: [...queuedRunIds(context), requestedRunId(event.runId)],
          }
        : {},
    ),
    startRun: assign(({ context }) => ({
      message: context.queue[0] ?? null,
      queue: context.queue.slice(1),
      queueRunIds: queuedRunIds(context).slice(1),
      runId:
        queuedRunIds(context)[0] ??
        `${context.sessionId}:run-${context.runs + 1}-${Date.now().toString(36)}`,
      runs: context.runs + 1,
      steps: 0,
      consecutiveCompactions: 0,
      point: null,
      mutatorIndex: 0,
      compactionReason: null,
      lastError: null,
      finishing: null,
    })),
    emitRunStarted: emit(({ context }) => runStartedEvent(context)),
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
    emitMutationStarted: emit(({ context }) => mutationStartedEvent(context)),
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
    failTooLarge: assign(({ context, event }) => ({
      finishing: {
        outcome: 'failed' as const,
        error: overflowError(
          context,
          outputOf<EmergencyPruneOutput>(event)?.detail ??
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
    emitInferenceFinished: emit(({ context, event }) => inferenceFinishedEvent(context, event)),
    emitInferenceFailed: emit(({ context, event }) => inferenceFailedEvent(context, event)),
    emitMutationFinished: emit(({ context, event }) => mutationFinishedEvent(context, event)),
    emitCompactorMutationStarted: emit(({ context }) => compactorMutationStartedEvent(context)),
    emitCompactorMutationFinished: emit(({ context, event }) =>
      compactorMutationFinishedEvent(context, event),
    ),
    emitEmergencyMutationStarted: emit(({ context }) => emergencyMutationStartedEvent(context)),
    emitEmergencyMutationFinished: emit(({ context, event }) =>
      emergencyMutationFinishedEvent(context, event),
    ),
    emitCompactionFinished: emit(({ context, event }) => compactionFinishedEvent(context, event)),
    emitCompactionFailed: emit(({ context, event }) => compactionFailedEvent(context, event)),
    emitEmergencyPruneApplied: emit(({ context, event }) =>
      emergencyPruneAppliedEvent(context, event),
    ),
    recordOutcome: assign(({ context }) => ({
      lastOutcome: context.finishing?.outcome ?? 'failed',
      lastError: context.finishing?.error ?? null,
      finishing: null,
      point: null,
      compactionReason: null,
    })),
    emitRunFinished: emit(({ context }) => runFinishedEvent(context)),
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
    queueRunIds: [],
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
          ...runOf(context),
          // Passed as sent: beginRun refuses content that is not text or parts (null included).
          content: context.message,
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
          ...runOf(context),
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
          ...runOf(context),
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
          ...runOf(context),
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
        emit(({ context }) => compactionStartedEvent(context)),
        'emitCompactorMutationStarted',
      ],
      exit: 'emitCompactorMutationFinished',
      invoke: {
        id: 'compact',
        src: 'compact',
        input: ({ context }) => ({
          ...runOf(context),
          reason: context.compactionReason ?? 'threshold',
          attempt: context.consecutiveCompactions,
          point: context.point ?? 'BeforeInference',
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
          ...runOf(context),
          reason: context.compactionReason ?? 'threshold',
          attempt: context.consecutiveCompactions,
          point: context.point ?? 'BeforeInference',
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
