import { ModelError } from 'loopkeeper';
import type { AgentLoopEvent } from 'loopkeeper/machines';
import { invokingStates, machineStates } from './machine-states.js';

/** An event the loop can receive: a host event, or the completion or failure of an invoked actor. */
export type LoopEvent =
  | AgentLoopEvent
  | { readonly type: `xstate.done.actor.${string}`; readonly output: unknown }
  | { readonly type: `xstate.error.actor.${string}`; readonly error: unknown };

/**
 * The machine's declared event type only lists host events; XState itself delivers the actor
 * completions, so graph traversal has to hand them in through the same door.
 */
export function asMachineEvent(event: LoopEvent): AgentLoopEvent {
  return event as AgentLoopEvent;
}

/** One thing that can happen next: what an invoked actor answered, or what the host sent. */
export interface Outcome {
  readonly label: string;
  readonly event: LoopEvent;
  /** A mutation whose transcript broke the tool-call protocol: the loop must not infer next. */
  readonly invalidMutation: boolean;
}

interface InvokedActor {
  readonly id: string;
  readonly source: string;
}

// Read off the invoke definitions, so renaming an actor or adding a state cannot desync the tests.
const actors = new Map<string, InvokedActor>(
  machineStates.flatMap((state) => {
    const [actor] = state.invokes;
    return actor === undefined ? [] : [[state.key, actor] as const];
  }),
);

export function invokedActor(stateKey: string): InvokedActor {
  const actor = actors.get(stateKey);
  if (actor === undefined) throw new Error(`state "${stateKey}" is not an invoking state`);
  return actor;
}

/** The actor source (the name given to `.provide({actors})`) behind a done or error event. */
export function actorSourceOfEvent(event: LoopEvent): string | null {
  const match = /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(event.type);
  if (match === null) return null;
  for (const actor of actors.values()) {
    if (actor.id === match[1]) return actor.source;
  }
  throw new Error(`no invoked actor has the id in "${event.type}"`);
}

function done(stateKey: string, label: string, output: unknown, invalid = false): Outcome {
  return {
    label: `${stateKey}: ${label}`,
    event: { type: `xstate.done.actor.${invokedActor(stateKey).id}`, output },
    invalidMutation: invalid,
  };
}

function failed(stateKey: string, label: string, error: unknown): Outcome {
  return {
    label: `${stateKey}: ${label}`,
    event: { type: `xstate.error.actor.${invokedActor(stateKey).id}`, error },
    invalidMutation: false,
  };
}

/** A call the model made that waits for a decision, as `gateTools` reports it. */
function awaitedCall(callId: string) {
  return { callId, toolName: 'deploy', arguments: '{"service":"web"}', argumentsHash: 'hash' };
}

/** A decision as `recordDecisions` reports it written; the machine reads only how many. */
function recordedDecision(callId: string) {
  return { callId, approved: true, toolName: 'deploy' };
}

const usage = { promptTokens: 1200, completionTokens: 40 };
const compactResult = { tier: 'summary', strategies: ['keepRecent'], durationMs: 3, metadata: {} };

/** Every outcome each invoked actor can have, as listed in issue 5. */
export const actorOutcomes = {
  resuming: [
    done('resuming', 'resumed at open tool calls', { next: 'tools' }),
    done('resuming', 'resumed after tool results', { next: 'toolResults' }),
    done('resuming', 'resumed after a final answer', { next: 'answer' }),
    done('resuming', 'resumed before an inference', { next: 'inference' }),
    failed('resuming', 'log shows no such run', new Error('no unfinished run')),
  ],
  beginning: [
    done('beginning', 'run begun', undefined),
    failed('beginning', 'store failed', new Error('store unavailable')),
  ],
  inferring: [
    done('inferring', 'model answered with text', {
      kind: 'final',
      toolCalls: 0,
      usage,
      durationMs: 5,
    }),
    done('inferring', 'model answered with tool calls', {
      kind: 'toolCalls',
      toolCalls: 2,
      usage,
      durationMs: 5,
    }),
    failed(
      'inferring',
      'context overflow',
      new ModelError('context_length_exceeded', { kind: 'context_overflow', status: 400 }),
    ),
    failed(
      'inferring',
      'payload too large',
      new ModelError('request entity too large', { kind: 'payload_too_large', status: 413 }),
    ),
    failed(
      'inferring',
      'server error',
      new ModelError('internal error', { kind: 'server', status: 500 }),
    ),
  ],
  gatingTools: [
    done('gatingTools', 'no call awaits approval', { awaiting: [] }),
    done('gatingTools', 'call_1 awaits approval', { awaiting: [awaitedCall('call_1')] }),
    done('gatingTools', 'call_1 and call_2 await approval', {
      awaiting: [awaitedCall('call_1'), awaitedCall('call_2')],
    }),
    failed('gatingTools', 'approval check failed', new Error('needsApproval store unavailable')),
  ],
  // The first `recorded.length` queued decisions are in the log; which ones the machine knows.
  recordingDecisions: [
    done('recordingDecisions', 'recorded 1 decision', { recorded: [recordedDecision('call_1')] }),
    done('recordingDecisions', 'recorded 2 decisions', {
      recorded: [recordedDecision('call_1'), recordedDecision('call_2')],
    }),
    failed('recordingDecisions', 'recording failed', new Error('store unavailable')),
  ],
  toolResult: [
    done('toolResult', 'tools done', { results: 2, errors: 0 }),
    failed('toolResult', 'tool runner failed', new Error('tool runner crashed')),
  ],
  mutating: [
    done('mutating', 'mutator clean', { dirty: false, valid: true, metadata: {} }),
    done('mutating', 'mutator dirty and valid', { dirty: true, valid: true, metadata: {} }),
    done(
      'mutating',
      'mutator dirty and invalid',
      { dirty: true, valid: false, metadata: {}, problems: ['orphan tool result'] },
      true,
    ),
    failed('mutating', 'mutator threw', new Error('mutator crashed')),
  ],
  checkingBudget: [
    done('checkingBudget', 'within budget', { over: false, tokens: 900, basis: 'reported' }),
    done('checkingBudget', 'over budget', { over: true, tokens: 9000, basis: 'estimate' }),
    failed('checkingBudget', 'token counter failed', new Error('counter crashed')),
  ],
  compacting: [
    done('compacting', 'compaction effective', {
      status: 'effective',
      changed: true,
      tokensBefore: 9000,
      tokensAfter: 3000,
      ...compactResult,
    }),
    done('compacting', 'compaction ineffective', {
      status: 'ineffective',
      changed: true,
      tokensBefore: 9000,
      tokensAfter: 8800,
      ...compactResult,
    }),
    done(
      'compacting',
      'compaction invalid',
      {
        status: 'invalid',
        changed: false,
        tokensBefore: 9000,
        tokensAfter: 3000,
        ...compactResult,
      },
      true,
    ),
    failed('compacting', 'summarizer failed', new Error('summarizer timed out')),
  ],
  emergencyPruning: [
    done('emergencyPruning', 'prune fits', {
      status: 'fits',
      changed: true,
      tokensBefore: 9000,
      tokensAfter: 2000,
      metadata: {},
    }),
    done('emergencyPruning', 'prune cannot fit', {
      status: 'too_large',
      changed: true,
      tokensBefore: 9000,
      tokensAfter: 8500,
      metadata: {},
    }),
    done(
      'emergencyPruning',
      'prune invalid',
      { status: 'invalid', changed: false, tokensBefore: 9000, tokensAfter: 2000, metadata: {} },
      true,
    ),
    failed('emergencyPruning', 'prune failed', new Error('prune crashed')),
  ],
  finishing: [
    done('finishing', 'run recorded', undefined),
    failed('finishing', 'recording failed', new Error('store unavailable')),
  ],
  aborting: [
    done('aborting', 'abort recorded', undefined),
    failed('aborting', 'recording failed', new Error('store unavailable')),
  ],
  compactingNow: [
    done('compactingNow', 'compaction asked for done', {
      status: 'effective',
      changed: true,
      tokensBefore: 9000,
      tokensAfter: 3000,
      ...compactResult,
    }),
    failed('compactingNow', 'compaction asked for failed', new Error('no compactor')),
  ],
  recordingPlan: [
    done('recordingPlan', 'plan logged', undefined),
    failed('recordingPlan', 'plan refused', new Error('plan is not a list')),
  ],
} satisfies Readonly<Record<string, readonly Outcome[]>>;

export const userMessage: Outcome = {
  label: 'user message',
  event: { type: 'user.message', content: 'please go on' },
  invalidMutation: false,
};

export const abort: Outcome = { label: 'abort', event: { type: 'abort' }, invalidMutation: false };

export const compactRequest: Outcome = {
  label: 'compact asked for',
  event: { type: 'compact', instructions: 'keep every file path' },
  invalidMutation: false,
};

export const planUpdate: Outcome = {
  label: 'plan update',
  event: { type: 'plan.update', plan: [{ step: 'Fix the bug', status: 'in_progress' }] },
  invalidMutation: false,
};

/** What the host can send besides a message: a compaction asked for, a plan to pin. */
export const hostRequests: readonly Outcome[] = [compactRequest, planUpdate];

function decision(callId: string, approved: boolean): Outcome {
  return {
    label: `${approved ? 'approve' : 'deny'} ${callId}`,
    event: {
      type: 'tool.approval',
      callId,
      approved,
      ...(approved ? {} : { reason: 'not now' }),
    },
    invalidMutation: false,
  };
}

/**
 * The host's decisions: both answers for each call `gateTools` can report, and one for a call
 * that never waits (`call_9`). A second decision for an already decided call is one of these sent
 * again, so the guard that takes only awaited, undecided calls is exercised both ways.
 */
export const decisions: readonly Outcome[] = [
  decision('call_1', true),
  decision('call_1', false),
  decision('call_2', true),
  decision('call_2', false),
  decision('call_9', true),
];

/** What the host sends (as opposed to what an invoked actor answers). */
export function isHostInput(outcome: Outcome): boolean {
  return actorSourceOfEvent(outcome.event) === null;
}

/** The call a `tool.approval` outcome decides, or null for any other outcome. */
export function decidedCall(outcome: Outcome): string | null {
  return outcome.event.type === 'tool.approval' ? outcome.event.callId : null;
}

/** A state that invokes an actor (the machine's list, which `actorOutcomes` is checked against below). */
export type InvokingState = keyof typeof actorOutcomes;

export function isInvokingState(stateKey: string): stateKey is InvokingState {
  return actors.has(stateKey);
}

// Every state that invokes an actor has its outcomes, and no outcome names another state.
const withOutcomes = Object.keys(actorOutcomes).sort();
if (JSON.stringify(withOutcomes) !== JSON.stringify([...invokingStates].sort())) {
  throw new Error(
    `actorOutcomes covers ${withOutcomes.join(', ')}; the machine's invoking states are ${[...invokingStates].sort().join(', ')}`,
  );
}

const allOutcomes = [
  ...Object.values(actorOutcomes).flat(),
  userMessage,
  abort,
  ...decisions,
  ...hostRequests,
];
const outcomeLabels = new Map<LoopEvent, string>(
  allOutcomes.map((outcome) => [outcome.event, outcome.label]),
);
const outcomesByLabel = new Map<string, Outcome>(
  allOutcomes.map((outcome) => [outcome.label, outcome]),
);

/** Events are the shared outcome constants, so their label names them; errors do not stringify. */
export function serializeLoopEvent(event: LoopEvent): string {
  const label = outcomeLabels.get(event);
  if (label === undefined) throw new Error(`event ${event.type} is not one of the outcomes`);
  return label;
}

export function outcomeOfEvent(event: LoopEvent): Outcome {
  const outcome = outcomesByLabel.get(serializeLoopEvent(event));
  if (outcome === undefined) throw new Error(`event ${event.type} is not one of the outcomes`);
  return outcome;
}
