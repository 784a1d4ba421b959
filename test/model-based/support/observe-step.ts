import { type AgentLoopInput, agentLoopMachine, type TelemetryEvent } from 'loopkeeper';
import type { AnyActorScope, ExecutableActionObject, SnapshotFrom } from 'xstate';
import { createActor } from 'xstate';
import type { LoopEvent } from './loop-outcomes.js';
import { asMachineEvent } from './loop-outcomes.js';

export type LoopSnapshot = SnapshotFrom<typeof agentLoopMachine>;

/** The innermost state's name: `inferring` for `{running: 'inferring'}`, `idle` for `idle`. */
export function leafState(snapshot: LoopSnapshot): string {
  let value: unknown = snapshot.value;
  while (typeof value === 'object' && value !== null) {
    value = Object.values(value as Record<string, unknown>)[0];
  }
  return String(value);
}
/** The real machine, or the real machine with an implementation swapped by `.provide()`. */
export type LoopMachine = typeof agentLoopMachine;

/** What a step made observable: telemetry it emitted, and actors it started (state entries). */
export type Observation =
  | { readonly kind: 'emitted'; readonly event: TelemetryEvent }
  | { readonly kind: 'invoked'; readonly source: string };

function observationsOf(actions: readonly ExecutableActionObject[]): Observation[] {
  const observations: Observation[] = [];
  for (const action of actions) {
    const params = action.params as { event?: TelemetryEvent; src?: unknown } | undefined;
    if (action.type === 'xstate.emit' && params?.event !== undefined) {
      observations.push({ kind: 'emitted', event: params.event });
    } else if (action.type === 'xstate.spawnChild' && typeof params?.src === 'string') {
      observations.push({ kind: 'invoked', source: params.src });
    }
  }
  return observations;
}

/**
 * xstate's pure `transition()` builds a fresh inert actor on every call, which dominates
 * traversal time; this scope is built once and reused. Nothing runs: actions are only collected.
 */
const recorded: ExecutableActionObject[] = [];
const inertSelf = createActor(agentLoopMachine, { input: { sessionId: 'model-based' } });
const recordingScope: AnyActorScope = {
  self: inertSelf,
  id: '',
  sessionId: '',
  system: inertSelf.system,
  logger: () => {},
  defer: () => {},
  emit: () => {},
  stopChild: () => {},
  actionExecutor: (action) => {
    recorded.push(action);
  },
};

/**
 * One step of the machine, as xstate's pure `transition()` takes it: the next snapshot, and
 * instead of executed actions what they would make observable — the emitted telemetry and the
 * actors started, in order.
 */
export function observeStep({
  snapshot,
  event,
  machine = agentLoopMachine,
}: {
  snapshot: LoopSnapshot;
  event: LoopEvent;
  machine?: LoopMachine;
}): {
  readonly next: LoopSnapshot;
  readonly observations: readonly Observation[];
} {
  recorded.length = 0;
  const next = machine.transition(snapshot, asMachineEvent(event), recordingScope);
  return { next, observations: observationsOf(recorded) };
}

/**
 * The machine's initial snapshot for an input, built without starting anything, and what
 * building it made observable (a loop given a run to resume starts that run at once).
 */
export function initialStep({
  input,
  machine = agentLoopMachine,
}: {
  input: AgentLoopInput;
  machine?: LoopMachine;
}): { readonly snapshot: LoopSnapshot; readonly observations: readonly Observation[] } {
  recorded.length = 0;
  const snapshot = machine.getInitialSnapshot(recordingScope, input);
  return { snapshot, observations: observationsOf(recorded) };
}
