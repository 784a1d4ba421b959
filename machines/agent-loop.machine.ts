/**
 * The `loopkeeper/machines` entry: the agent loop as an XState machine that only declares its
 * states, guards and actions; `createAgentLoop` binds its named actors with `.provide()`.
 */
import { and, assign, emit, enqueueActions, setup } from 'xstate';
import type { TelemetryEvent } from '../src/events/telemetry-events.js';
import type { MutationPoint } from '../src/vocabulary/index.js';
import { providerRefusal } from './agent-loop.errors.js';
import {
  abortedByHost,
  compactionInput,
  DEFAULT_MAX_CONSECUTIVE_COMPACTIONS,
  DEFAULT_MAX_STEPS_PER_RUN,
  failureOf,
  finishInput,
  invalidMutationError,
  invocationOf,
  nextMutatorIndex,
  nextRunId,
  notProvided,
  outputFrom,
  overflowError,
  queuedRunIds,
  requestedRunId,
} from './agent-loop.helpers.js';
import {
  approvalDecidedEvents,
  approvalRequestedEvent,
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
import type { AgentLoopContext, AgentLoopEvent, AgentLoopInput } from './agent-loop.types.js';

export type * from './agent-loop.types.js';

/**
 * The agent loop:
 *
 *   idle ──user.message──▶ running ──▶ finishing ──▶ idle
 *   running: beginning ▶ routing ▶ (mutating ▶ routing)* ▶ checkingBudget
 *              ├─ within budget ▶ continuing ▶ inferring ▶ toolResult ▶ routing ...
 *              │                            └─ (turn ended, step limit) ▶ finishing
 *              └─ over budget ▶ overBudget ▶ compacting ─(ineffective, failed)▶ emergencyPruning
 *   running ──abort──▶ aborting ──▶ idle
 *   tool calls ▶ gatingTools ─(a call needs approval)▶ awaitingApproval ⇄ recordingDecisions ▶ toolResult
 *   idle ─(a run the log shows unfinished)▶ running.resuming ▶ wherever the run was
 *
 * It declares what happens and in which order; every piece of I/O (the model, tools, mutators,
 * the compactor, the session store) is a named actor provided by the runtime. Context holds only
 * small serializable facts, so the definition can be traversed by `xstate/graph` and persisted
 * with `getPersistedSnapshot()`.
 *
 * @example
 * ```ts
 * import { agentLoopMachine } from 'loopkeeper';
 *
 * // The bare definition: draw it, traverse it, or bind its named actors with .provide().
 * console.log(Object.keys(agentLoopMachine.states));
 * console.log(agentLoopMachine.id);
 * ```
 */
export const agentLoopMachine = setup({
  types: {
    context: {} as AgentLoopContext,
    events: {} as AgentLoopEvent,
    input: {} as AgentLoopInput,
    emitted: {} as TelemetryEvent,
  },
  actors: {
    beginRun: notProvided('beginRun'),
    resumeRun: notProvided('resumeRun'),
    callModel: notProvided('callModel'),
    gateTools: notProvided('gateTools'),
    recordDecisions: notProvided('recordDecisions'),
    runTools: notProvided('runTools'),
    runMutator: notProvided('runMutator'),
    checkBudget: notProvided('checkBudget'),
    compact: notProvided('compact'),
    emergencyPrune: notProvided('emergencyPrune'),
    finishRun: notProvided('finishRun'),
    abortRun: notProvided('abortRun'),
    compactNow: notProvided('compactNow'),
    recordPlan: notProvided('recordPlan'),
  },
  guards: {
    hasQueuedMessage: ({ context }) => context.queue.length > 0,
    hasPendingPlan: ({ context }) => context.pendingPlan != null,
    hasPendingCompaction: ({ context }) => context.pendingCompaction != null,
    // A cap of 0 allows no compaction step but the emergency prune a run needs.
    compactionAllowed: ({ context }) => context.maxConsecutiveCompactions > 0,
    hasRunToResume: ({ context }) => (context.resume ?? null) !== null,
    resumeAtTools: ({ event }) => outputFrom(event, 'resumeRun')?.next === 'tools',
    resumeAfterToolResults: ({ event }) => outputFrom(event, 'resumeRun')?.next === 'toolResults',
    resumeAfterAnswer: ({ event }) => outputFrom(event, 'resumeRun')?.next === 'answer',
    modelCalledTools: ({ event }) => outputFrom(event, 'callModel')?.kind === 'toolCalls',
    mayNeedApproval: ({ context }) => context.approvals === true,
    approvalsPending: ({ event }) => (outputFrom(event, 'gateTools')?.awaiting.length ?? 0) > 0,
    isAwaitedCall: ({ context, event }) =>
      event.type === 'tool.approval' &&
      typeof event.approved === 'boolean' &&
      awaitedCalls(context).includes(event.callId),
    hasQueuedDecision: ({ context }) => (context.decisions ?? []).length > 0,
    allCallsDecided: ({ context }) => awaitedCalls(context).length === 0,
    providerAskedToCompact: ({ event }) => providerRefusal(failureSource(event)) !== null,
    hasPendingMutator: ({ context }) => context.mutatorIndex >= 0,
    mutationInvalid: ({ event }) => outputFrom(event, 'runMutator')?.valid === false,
    withinBudget: ({ event }) => outputFrom(event, 'checkBudget')?.over === false,
    compactionInvalid: ({ event }) => outputFrom(event, 'compact')?.status === 'invalid',
    compactionEffective: ({ event }) => outputFrom(event, 'compact')?.status === 'effective',
    pruneInvalid: ({ event }) => outputFrom(event, 'emergencyPrune')?.status === 'invalid',
    pruneFits: ({ event }) => outputFrom(event, 'emergencyPrune')?.status === 'fits',
    turnEnded: ({ context }) => context.point === 'AfterTurnEnded',
    stepLimitReached: ({ context }) => context.steps >= context.maxStepsPerRun,
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
    // Only the latest plan matters: an update replaces one still waiting.
    enqueuePlan: assign(({ event }) =>
      event.type === 'plan.update'
        ? { pendingPlan: { plan: event.plan, explanation: event.explanation } }
        : {},
    ),
    clearPlan: assign({ pendingPlan: null }),
    enqueueCompaction: assign(({ context, event }) => {
      if (event.type !== 'compact') return {};
      const earlier = context.pendingCompaction?.instructions ?? null;
      const added = typeof event.instructions === 'string' ? event.instructions : null;
      return {
        pendingCompaction: {
          instructions:
            earlier === null ? added : added === null ? earlier : `${earlier}\n${added}`,
        },
      };
    }),
    // A fresh sequence: the first compaction step since the last run's inferences.
    startCompactionNow: assign({ compactionReason: 'manual', consecutiveCompactions: 1 }),
    endCompactionNow: assign({ compactionReason: null, pendingCompaction: null }),
    refuseCompactionNow: assign({
      pendingCompaction: null,
      lastError: {
        name: 'CompactionError',
        code: 'compaction',
        message: 'The loop allows no compaction (maxConsecutiveCompactions is 0)',
      },
    }),
    recordSideFailure: assign(({ event }) => ({ lastError: failureOf(event) })),
    startRun: assign(({ context }) => ({
      ...FRESH_RUN,
      ...approvalsCleared(context),
      ...(context.resumed === true ? { resumed: false } : {}),
      message: context.queue[0] ?? null,
      queue: context.queue.slice(1),
      queueRunIds: queuedRunIds(context).slice(1),
      runId: nextRunId(context),
      runs: context.runs + 1,
      steps: 0,
    })),
    startResumedRun: assign(({ context }) => ({
      ...FRESH_RUN,
      ...approvalsCleared(context),
      runId: context.resume?.runId ?? nextRunId(context),
      runs: context.runs + 1,
      steps: context.resume?.steps ?? 0,
      resume: null,
      resumed: true,
    })),
    emitRunStarted: emit(({ context }) => runStartedEvent(context)),
    awaitApprovals: assign(({ event }) => ({
      awaitingApproval: (outputFrom(event, 'gateTools')?.awaiting ?? []).map((call) => call.callId),
      decisions: [],
    })),
    emitApprovalRequested: emit(({ context, event }) => approvalRequestedEvent(context, event)),
    queueDecision: assign(({ context, event }) =>
      event.type === 'tool.approval'
        ? {
            awaitingApproval: awaitedCalls(context).filter((id) => id !== event.callId),
            decisions: [
              ...(context.decisions ?? []),
              {
                callId: event.callId,
                approved: event.approved,
                ...(typeof event.reason === 'string' ? { reason: event.reason } : {}),
              },
            ],
          }
        : {},
    ),
    dropRecordedDecisions: assign(({ context, event }) => ({
      decisions: (context.decisions ?? []).slice(
        outputFrom(event, 'recordDecisions')?.recorded.length ?? 0,
      ),
    })),
    emitApprovalDecided: enqueueActions(({ context, event, enqueue }) => {
      for (const decided of approvalDecidedEvents(context, event)) enqueue.emit(decided);
    }),
    clearMessage: assign({ message: null }),
    countStep: assign({ steps: ({ context }) => context.steps + 1 }),
    /**
     * Arrives at a mutation point: the first mutator declared for it runs next, if any. Assigns
     * only a change: a step arrives at the point it was at already, and every assign copies the
     * whole context (see approvalsCleared).
     */
    arriveAt: enqueueActions(({ context, enqueue }, params: { point: MutationPoint }) => {
      const mutatorIndex = nextMutatorIndex(context, params.point, 0);
      if (context.point !== params.point || context.mutatorIndex !== mutatorIndex) {
        enqueue.assign({ point: params.point, mutatorIndex });
      }
    }),
    advanceMutator: assign(({ context }) => ({
      mutatorIndex:
        context.point === null
          ? -1
          : nextMutatorIndex(context, context.point, context.mutatorIndex + 1),
    })),
    emitMutationStarted: emit(({ context }) => mutationStartedEvent(context)),
    emitMutationFinished: emit(({ context, event }) => mutationFinishedEvent(context, event)),
    inferenceSucceeded: assign(({ event }) => ({
      consecutiveCompactions: 0,
      lastUsage: outputFrom(event, 'callModel')?.usage ?? null,
    })),
    emitInferenceFinished: emit(({ context, event }) => inferenceFinishedEvent(context, event)),
    emitInferenceFailed: emit(({ context, event }) => inferenceFailedEvent(context, event)),
    compactForThreshold: assign({ compactionReason: 'threshold' }),
    compactForRefusal: assign(({ event }) => ({
      compactionReason: providerRefusal(failureSource(event)),
    })),
    countCompaction: assign({
      consecutiveCompactions: ({ context }) => context.consecutiveCompactions + 1,
    }),
    emitCompactionStarted: emit(({ context }) => compactionStartedEvent(context)),
    emitCompactorMutationStarted: emit(({ context }) => compactorMutationStartedEvent(context)),
    emitCompactorMutationFinished: emit(({ context, event }) =>
      compactorMutationFinishedEvent(context, event),
    ),
    emitCompactionFinished: emit(({ context, event }) => compactionFinishedEvent(context, event)),
    emitCompactionNowFinished: emit(({ context, event }) =>
      compactionFinishedEvent(context, event, 'compactNow'),
    ),
    emitCompactionFailed: emit(({ context, event }) => compactionFailedEvent(context, event)),
    emitEmergencyMutationStarted: emit(({ context }) => emergencyMutationStartedEvent(context)),
    emitEmergencyMutationFinished: emit(({ context, event }) =>
      emergencyMutationFinishedEvent(context, event),
    ),
    emitEmergencyPruneApplied: emit(({ context, event }) =>
      emergencyPruneAppliedEvent(context, event),
    ),
    forwardTelemetry: emit(({ event }) =>
      event.type === 'loop.telemetry' ? event.event : (undefined as never),
    ),
    finishCompleted: assign({ finishing: { outcome: 'completed', error: null } }),
    finishStepLimit: assign({ finishing: { outcome: 'step_limit', error: null } }),
    finishAborted: assign({
      finishing: { outcome: 'aborted', error: abortedByHost },
      message: null,
    }),
    failWithError: assign(({ event }) => ({
      finishing: { outcome: 'failed' as const, error: failureOf(event) },
    })),
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
          outputFrom(event, 'emergencyPrune')?.detail ??
            'Even the latest user turn alone does not fit the context budget',
        ),
      },
    })),
    failInvalidMutation: assign(({ context }) => ({
      finishing: { outcome: 'failed' as const, error: invalidMutationError(context) },
    })),
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
    ...(input.instance === undefined ? {} : { instance: input.instance }),
    maxConsecutiveCompactions:
      input.maxConsecutiveCompactions ?? DEFAULT_MAX_CONSECUTIVE_COMPACTIONS,
    maxStepsPerRun: input.maxStepsPerRun ?? DEFAULT_MAX_STEPS_PER_RUN,
    mutators: input.mutators ?? [],
    compactor: input.compactor ?? null,
    // The optional keys only when they say something: see approvalsCleared.
    ...(input.approvals === true ? { approvals: true } : {}),
    ...(input.resume == null ? {} : { resume: input.resume }),
    queue: [],
    queueRunIds: [],
    message: null,
    runId: null,
    runs: 0,
    steps: 0,
    consecutiveCompactions: 0,
    point: null,
    mutatorIndex: -1,
    compactionReason: null,
    lastUsage: null,
    lastError: null,
    lastOutcome: null,
    finishing: null,
  }),
  initial: 'idle',
  on: {
    'user.message': { actions: 'enqueueMessage' },
    'plan.update': { actions: 'enqueuePlan' },
    compact: { actions: 'enqueueCompaction' },
    'loop.telemetry': { actions: 'forwardTelemetry' },
  },
  states: {
    idle: {
      // An unfinished run from the log goes on first; then a plan or a compaction asked for
      // meanwhile, so the next run sees its result.
      always: [
        { guard: 'hasRunToResume', target: 'running.resuming', actions: 'startResumedRun' },
        { guard: 'hasPendingPlan', target: 'recordingPlan' },
        {
          guard: and(['hasPendingCompaction', 'compactionAllowed']),
          target: 'compactingNow',
        },
        { guard: 'hasPendingCompaction', actions: 'refuseCompactionNow' },
        { guard: 'hasQueuedMessage', target: 'running', actions: 'startRun' },
      ],
      on: { close: 'closed' },
    },
    /** Logs the latest `plan.update` as a pinned plan item; a refused plan is `lastError`. */
    recordingPlan: {
      invoke: {
        id: 'recordPlan',
        src: 'recordPlan',
        input: ({ context, self }) => ({
          sessionId: context.sessionId,
          runId: '',
          loop: self,
          update: context.pendingPlan,
        }),
        onDone: { target: 'idle', actions: 'clearPlan' },
        onError: { target: 'idle', actions: ['clearPlan', 'recordSideFailure'] },
      },
    },
    /** `compact` sent by the host: the tiers now, between runs; a failure is `lastError`. */
    compactingNow: {
      entry: ['startCompactionNow', 'emitCompactionStarted'],
      invoke: {
        id: 'compactNow',
        src: 'compactNow',
        input: ({ context, self }) => ({
          sessionId: context.sessionId,
          runId: '',
          loop: self,
          instructions: context.pendingCompaction?.instructions ?? null,
        }),
        // Cleared after the telemetry, which names the reason.
        onDone: { target: 'idle', actions: ['emitCompactionNowFinished', 'endCompactionNow'] },
        onError: {
          target: 'idle',
          actions: ['emitCompactionFailed', 'recordSideFailure', 'endCompactionNow'],
        },
      },
    },
    running: {
      initial: 'beginning',
      entry: 'emitRunStarted',
      on: {
        // The one way out besides finishing: every step of a run can be aborted.
        abort: { target: 'aborting', actions: 'finishAborted' },
        // Decisions are taken whenever they arrive and recorded in order, so none is lost while
        // an earlier one is being written.
        'tool.approval': { guard: 'isAwaitedCall', actions: 'queueDecision' },
      },
      states: {
        /** A run the log shows unfinished: go on where its log says it stopped. */
        resuming: {
          invoke: {
            id: 'resumeRun',
            src: 'resumeRun',
            input: invocationOf,
            onDone: [
              { guard: 'resumeAtTools', target: 'gatingTools' },
              {
                guard: 'resumeAfterToolResults',
                target: 'routing',
                actions: { type: 'arriveAt', params: { point: 'AfterToolResult' } },
              },
              {
                guard: 'resumeAfterAnswer',
                target: 'routing',
                actions: { type: 'arriveAt', params: { point: 'AfterTurnEnded' } },
              },
              {
                target: 'routing',
                actions: { type: 'arriveAt', params: { point: 'BeforeInference' } },
              },
            ],
            onError: { target: '#agentLoop.finishing', actions: 'failWithError' },
          },
        },
        beginning: {
          invoke: {
            id: 'beginRun',
            src: 'beginRun',
            input: ({ context, self }) => ({
              ...invocationOf({ context, self }),
              // Passed as sent: beginRun refuses content that is not text or parts (null too).
              content: context.message,
            }),
            onDone: {
              target: 'routing',
              actions: ['clearMessage', { type: 'arriveAt', params: { point: 'BeforeInference' } }],
            },
            onError: { target: '#agentLoop.finishing', actions: 'failWithError' },
          },
        },
        /** At a mutation point: run its next mutator, or check the budget once all have run. */
        routing: {
          always: [
            { guard: 'hasPendingMutator', target: 'mutating' },
            { target: 'checkingBudget' },
          ],
        },
        mutating: {
          entry: 'emitMutationStarted',
          exit: 'emitMutationFinished',
          invoke: {
            id: 'runMutator',
            src: 'runMutator',
            input: ({ context, self }) => ({
              ...invocationOf({ context, self }),
              mutator: context.mutators[context.mutatorIndex]?.name ?? '',
              point: context.point ?? 'AfterToolResult',
            }),
            onDone: [
              {
                guard: 'mutationInvalid',
                target: '#agentLoop.finishing',
                actions: 'failInvalidMutation',
              },
              { target: 'routing', actions: 'advanceMutator' },
            ],
            onError: { target: '#agentLoop.finishing', actions: 'failWithError' },
          },
        },
        checkingBudget: {
          invoke: {
            id: 'checkBudget',
            src: 'checkBudget',
            input: ({ context, self }) => ({
              ...invocationOf({ context, self }),
              point: context.point ?? 'BeforeInference',
            }),
            onDone: [
              { guard: 'withinBudget', target: 'continuing' },
              { target: 'overBudget', actions: 'compactForThreshold' },
            ],
            onError: { target: '#agentLoop.finishing', actions: 'failWithError' },
          },
        },
        /** Over budget (by our count or the provider's refusal): compact under the cap. */
        overBudget: {
          always: [
            { guard: 'canCompact', target: 'compacting' },
            { guard: 'canEmergencyPrune', target: 'emergencyPruning' },
            { target: '#agentLoop.finishing', actions: 'failOverCap' },
          ],
        },
        /** Within budget: end the turn, or go on to the next inference. */
        continuing: {
          always: [
            { guard: 'turnEnded', target: '#agentLoop.finishing', actions: 'finishCompleted' },
            {
              guard: 'stepLimitReached',
              target: '#agentLoop.finishing',
              actions: 'finishStepLimit',
            },
            { target: 'inferring' },
          ],
        },
        inferring: {
          // InferenceStarted comes from the callModel actor, which knows the request's size.
          entry: 'countStep',
          invoke: {
            id: 'callModel',
            src: 'callModel',
            input: ({ context, self }) => ({
              ...invocationOf({ context, self }),
              step: context.steps,
            }),
            onDone: [
              {
                guard: and(['modelCalledTools', 'mayNeedApproval']),
                target: 'gatingTools',
                actions: ['inferenceSucceeded', 'emitInferenceFinished'],
              },
              {
                guard: 'modelCalledTools',
                target: 'toolResult',
                actions: ['inferenceSucceeded', 'emitInferenceFinished'],
              },
              {
                target: 'routing',
                actions: [
                  'inferenceSucceeded',
                  'emitInferenceFinished',
                  { type: 'arriveAt', params: { point: 'AfterTurnEnded' } },
                ],
              },
            ],
            onError: [
              {
                guard: 'providerAskedToCompact',
                target: 'overBudget',
                actions: ['emitInferenceFailed', 'compactForRefusal'],
              },
              {
                target: '#agentLoop.finishing',
                actions: ['emitInferenceFailed', 'failWithError'],
              },
            ],
          },
        },
        /** Asks each called tool whether the call needs a person's approval first. */
        gatingTools: {
          invoke: {
            id: 'gateTools',
            src: 'gateTools',
            input: invocationOf,
            onDone: [
              {
                guard: 'approvalsPending',
                target: 'awaitingApproval',
                actions: ['awaitApprovals', 'emitApprovalRequested'],
              },
              { target: 'toolResult' },
            ],
            onError: { target: '#agentLoop.finishing', actions: 'failWithError' },
          },
        },
        /**
         * Paused until every waiting call has a decision (`tool.approval`, taken by `running`).
         * Nothing runs here and nothing is compacted, so a pending call stays with its turn.
         */
        awaitingApproval: {
          always: [
            { guard: 'hasQueuedDecision', target: 'recordingDecisions' },
            { guard: 'allCallsDecided', target: 'toolResult' },
          ],
        },
        recordingDecisions: {
          invoke: {
            id: 'recordDecisions',
            src: 'recordDecisions',
            input: ({ context, self }) => ({
              ...invocationOf({ context, self }),
              decisions: context.decisions ?? [],
            }),
            onDone: {
              target: 'awaitingApproval',
              actions: ['dropRecordedDecisions', 'emitApprovalDecided'],
            },
            onError: { target: '#agentLoop.finishing', actions: 'failWithError' },
          },
        },
        toolResult: {
          invoke: {
            id: 'runTools',
            src: 'runTools',
            input: invocationOf,
            onDone: {
              target: 'routing',
              actions: { type: 'arriveAt', params: { point: 'AfterToolResult' } },
            },
            onError: { target: '#agentLoop.finishing', actions: 'failWithError' },
          },
        },
        compacting: {
          entry: ['countCompaction', 'emitCompactionStarted', 'emitCompactorMutationStarted'],
          exit: 'emitCompactorMutationFinished',
          invoke: {
            id: 'compact',
            src: 'compact',
            input: compactionInput,
            onDone: [
              {
                guard: 'compactionInvalid',
                target: '#agentLoop.finishing',
                actions: ['emitCompactionFinished', 'failInvalidMutation'],
              },
              {
                guard: 'compactionEffective',
                target: 'continuing',
                actions: 'emitCompactionFinished',
              },
              // Still over the trigger: an ineffective compaction goes to the emergency prune.
              {
                guard: 'canEmergencyPrune',
                target: 'emergencyPruning',
                actions: 'emitCompactionFinished',
              },
              {
                target: '#agentLoop.finishing',
                actions: ['emitCompactionFinished', 'failOverCap'],
              },
            ],
            onError: [
              {
                guard: 'canEmergencyPrune',
                target: 'emergencyPruning',
                actions: 'emitCompactionFailed',
              },
              {
                target: '#agentLoop.finishing',
                actions: ['emitCompactionFailed', 'failOverCap'],
              },
            ],
          },
        },
        emergencyPruning: {
          entry: ['countCompaction', 'emitEmergencyMutationStarted'],
          exit: 'emitEmergencyMutationFinished',
          invoke: {
            id: 'emergencyPrune',
            src: 'emergencyPrune',
            input: compactionInput,
            onDone: [
              {
                guard: 'pruneInvalid',
                target: '#agentLoop.finishing',
                actions: 'failInvalidMutation',
              },
              { guard: 'pruneFits', target: 'continuing', actions: 'emitEmergencyPruneApplied' },
              {
                target: '#agentLoop.finishing',
                actions: ['emitEmergencyPruneApplied', 'failTooLarge'],
              },
            ],
            onError: { target: '#agentLoop.finishing', actions: 'failWithError' },
          },
        },
      },
    },
    /** Closes the run in the log (completed, step limit or failed), then back to idle. */
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
    /** Answers open tool calls with synthetic results, closes the run, then back to idle. */
    aborting: {
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

/** What every run starts with, whether a message started it or it was resumed from the log. */
const FRESH_RUN = {
  consecutiveCompactions: 0,
  point: null,
  mutatorIndex: -1,
  compactionReason: null,
  lastError: null,
  finishing: null,
} as const satisfies Partial<AgentLoopContext>;

/**
 * Every `assign` copies the context with `Object.assign({}, context, update)`, and V8 keeps a
 * copy of more than 19 keys as a slow dictionary, whose size grows with the keys: on every step
 * and in every idle loop. So the optional keys (`approvals`, `resume`, `resumed`,
 * `awaitingApproval`, `decisions`) are left out until they hold something, and a run resets
 * them only where they are present: absent reads as false, null or empty everywhere. A loop
 * without approvals keeps 20 keys instead of 25 (its context about 0.9 KB instead of 1.7 KB).
 */
function approvalsCleared(
  context: AgentLoopContext,
): Pick<AgentLoopContext, 'awaitingApproval' | 'decisions'> {
  return {
    ...(context.awaitingApproval === undefined ? {} : { awaitingApproval: [] }),
    ...(context.decisions === undefined ? {} : { decisions: [] }),
  };
}

/** Calls the run waits for that have no decision yet (none in snapshots from before approvals). */
function awaitedCalls(context: AgentLoopContext): readonly string[] {
  return context.awaitingApproval ?? [];
}

/** What an actor's failure event carries, for the guards that read it. */
function failureSource(event: { readonly type: string }): unknown {
  return 'error' in event ? (event as { readonly error: unknown }).error : undefined;
}
