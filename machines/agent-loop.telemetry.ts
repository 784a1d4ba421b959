/**
 * The telemetry events the loop machine emits, built from its context and the event that
 * caused the transition. Pure functions: the machine wires them to `emit`.
 */

import type {
  ApprovalDecided,
  ApprovalRequested,
  CompactionFailed,
  CompactionFinished,
  CompactionStarted,
  EmergencyPruneApplied,
  InferenceFailed,
  InferenceFinished,
  MutationFinished,
  MutationStarted,
  RunFinished,
  RunStarted,
} from '../src/events/telemetry-events.js';
import { base, failureOf, finishedWithoutOutput, outputFrom } from './agent-loop.helpers.js';
import type { AgentLoopContext } from './agent-loop.types.js';

/** The event that caused a transition, as the machine hands it to an action. */
type LoopEvent = { readonly type: string };

export function runStartedEvent(context: AgentLoopContext): RunStarted {
  return {
    type: 'RunStarted' as const,
    ...base(context),
    ...(context.resumed === true ? { resumed: true } : {}),
  };
}

/** The run pauses: the calls `gateTools` found waiting for a decision. */
export function approvalRequestedEvent(
  context: AgentLoopContext,
  event: LoopEvent,
): ApprovalRequested {
  return {
    type: 'ApprovalRequested' as const,
    ...base(context),
    calls: outputFrom(event, 'gateTools')?.awaiting ?? [],
  };
}

/** One event per decision `recordDecisions` wrote to the log. */
export function approvalDecidedEvents(
  context: AgentLoopContext,
  event: LoopEvent,
): ApprovalDecided[] {
  return (outputFrom(event, 'recordDecisions')?.recorded ?? []).map((decision) => ({
    type: 'ApprovalDecided' as const,
    ...base(context),
    callId: decision.callId,
    toolName: decision.toolName,
    approved: decision.approved,
    ...(decision.reason === undefined ? {} : { reason: decision.reason }),
  }));
}

export function mutationStartedEvent(context: AgentLoopContext): MutationStarted {
  return {
    type: 'MutationStarted' as const,
    ...base(context),
    mutator: context.mutators[context.mutatorIndex]?.name ?? '',
    point: context.point ?? 'AfterToolResult',
  };
}

export function inferenceFinishedEvent(
  context: AgentLoopContext,
  event: LoopEvent,
): InferenceFinished {
  const output = outputFrom(event, 'callModel');
  return {
    type: 'InferenceFinished' as const,
    ...base(context),
    step: context.steps,
    usage: output?.usage ?? undefined,
    toolCalls: output?.toolCalls ?? 0,
    durationMs: output?.durationMs ?? 0,
    ...(output?.model === undefined ? {} : { model: output.model }),
    ...(output?.finishReason === undefined ? {} : { finishReason: output.finishReason }),
  };
}

export function inferenceFailedEvent(context: AgentLoopContext, event: LoopEvent): InferenceFailed {
  return {
    type: 'InferenceFailed' as const,
    ...base(context),
    step: context.steps,
    error: failureOf(event),
  };
}

export function mutationFinishedEvent(
  context: AgentLoopContext,
  event: LoopEvent,
): MutationFinished {
  const output = outputFrom(event, 'runMutator');
  return {
    type: 'MutationFinished' as const,
    ...base(context),
    mutator: context.mutators[context.mutatorIndex]?.name ?? '',
    point: context.point ?? 'AfterToolResult',
    dirty: output?.dirty === true && output.valid,
    metadata: output?.metadata ?? finishedWithoutOutput(event),
  };
}

export function compactorMutationStartedEvent(context: AgentLoopContext): MutationStarted {
  return {
    type: 'MutationStarted' as const,
    ...base(context),
    mutator: context.compactor ?? 'compactor',
    point: context.point ?? 'BeforeInference',
  };
}

export function compactorMutationFinishedEvent(
  context: AgentLoopContext,
  event: LoopEvent,
): MutationFinished {
  const output = outputFrom(event, 'compact');
  return {
    type: 'MutationFinished' as const,
    ...base(context),
    mutator: context.compactor ?? 'compactor',
    point: context.point ?? 'BeforeInference',
    dirty: output?.changed === true && output.status !== 'invalid',
    metadata: output?.metadata ?? finishedWithoutOutput(event),
  };
}

export function emergencyMutationStartedEvent(context: AgentLoopContext): MutationStarted {
  return {
    type: 'MutationStarted' as const,
    ...base(context),
    mutator: 'emergencyPrune',
    point: context.point ?? 'BeforeInference',
  };
}

export function emergencyMutationFinishedEvent(
  context: AgentLoopContext,
  event: LoopEvent,
): MutationFinished {
  const output = outputFrom(event, 'emergencyPrune');
  return {
    type: 'MutationFinished' as const,
    ...base(context),
    mutator: 'emergencyPrune',
    point: context.point ?? 'BeforeInference',
    dirty: output?.changed === true && output.status !== 'invalid',
    metadata: output?.metadata ?? finishedWithoutOutput(event),
  };
}

export function compactionFinishedEvent(
  context: AgentLoopContext,
  event: LoopEvent,
  source: 'compact' | 'compactNow' = 'compact',
): CompactionFinished {
  const output = outputFrom(event, source);
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
}

export function compactionFailedEvent(
  context: AgentLoopContext,
  event: LoopEvent,
): CompactionFailed {
  return {
    type: 'CompactionFailed' as const,
    ...base(context),
    reason: context.compactionReason ?? 'threshold',
    error: failureOf(event),
  };
}

export function emergencyPruneAppliedEvent(
  context: AgentLoopContext,
  event: LoopEvent,
): EmergencyPruneApplied {
  const output = outputFrom(event, 'emergencyPrune');
  return {
    type: 'EmergencyPruneApplied' as const,
    ...base(context),
    tokensBefore: output?.tokensBefore ?? 0,
    tokensAfter: output?.tokensAfter ?? 0,
    fits: output?.status === 'fits',
  };
}

export function runFinishedEvent(context: AgentLoopContext): RunFinished {
  return {
    type: 'RunFinished' as const,
    ...base(context),
    outcome: context.finishing?.outcome ?? 'failed',
    steps: context.steps,
    error: context.finishing?.error ?? undefined,
  };
}

export function compactionStartedEvent(context: AgentLoopContext): CompactionStarted {
  return {
    type: 'CompactionStarted',
    ...base(context),
    reason: context.compactionReason ?? 'threshold',
    attempt: context.consecutiveCompactions,
  };
}
