import { agentLoopMachine, type TelemetryEvent } from 'loopkeeper';
import { createActor } from 'xstate';
import { createControllableActors } from './controllable-actors.js';
import type { LoopConfiguration, LoopGraph } from './loop-graph.js';
import { serializeLoopState, stateKeyOf } from './loop-graph.js';
import {
  actorSourceOfEvent,
  asMachineEvent,
  invokedActor,
  isInvokingState,
  userMessage,
} from './loop-outcomes.js';
import type { LoopMachine, LoopSnapshot } from './observe-step.js';
import type { LoopPath } from './path-check.js';
import { stepsOf } from './path-check.js';

/** Lets promise callbacks and the actor's mailbox run to quiescence. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function telemetryKey(event: TelemetryEvent): string {
  return 'mutator' in event ? `${event.type}(${event.mutator})` : event.type;
}

/** What the replay compares after each step: the abstract state, running actors, telemetry. */
interface Observed {
  readonly state: string;
  readonly running: readonly string[];
}

/** Exactly the actor the current state invokes is running: nothing leaks from earlier states. */
function expectedRunning(snapshot: LoopSnapshot): { id: string; source: string }[] {
  const stateKey = stateKeyOf(snapshot);
  return isInvokingState(stateKey) ? [invokedActor(stateKey)] : [];
}

/**
 * Runs one graph path on the real actor with controllable fake actors, completing the running
 * actor as the path says (or sending the host event), and returns the first disagreement
 * between the graph and the running code, or null when they agree on every step.
 */
export async function replayPath({
  configuration,
  graph,
  path,
  machine = agentLoopMachine,
}: {
  configuration: LoopConfiguration;
  graph: LoopGraph;
  path: LoopPath;
  machine?: LoopMachine;
}): Promise<string | null> {
  const controls = createControllableActors();
  const actor = createActor(machine.provide({ actors: controls.actors }), {
    input: configuration.input,
  });
  const emitted: string[] = [];
  actor.on('*', (event) => {
    emitted.push(telemetryKey(event));
  });
  const failures: unknown[] = [];
  actor.subscribe({ error: (error) => failures.push(error) });
  actor.start();
  await settle();

  const { initial, steps } = stepsOf(path);
  const labels: string[] = [];
  const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
  const disagreement = (what: string, expected: unknown, actual: unknown) =>
    `${what} after [${labels.join(' → ')}]: expected ${show(expected)}, got ${show(actual)}`;
  const observe = (): Observed => ({
    state: serializeLoopState(actor.getSnapshot()),
    running: Object.keys(actor.getSnapshot().children).sort(),
  });

  try {
    // Complete runs start just after the first user message; shortest paths start in idle.
    if (serializeLoopState(initial) !== observe().state) {
      labels.push(userMessage.label);
      actor.send(asMachineEvent(userMessage.event));
      await settle();
    }
    if (serializeLoopState(initial) !== observe().state) {
      return disagreement('state', serializeLoopState(initial), observe().state);
    }
    let state = serializeLoopState(initial);
    for (const step of steps) {
      labels.push(step.outcome.label);
      emitted.length = 0;
      const event = step.outcome.event;
      const source = actorSourceOfEvent(event);
      if (source === null) {
        actor.send(asMachineEvent(event));
      } else if ('output' in event) {
        controls.take(source).resolve(event.output);
      } else if ('error' in event) {
        controls.take(source).reject(event.error);
      }
      await settle();

      const observed = observe();
      const expectedState = serializeLoopState(step.snapshot);
      if (observed.state !== expectedState) {
        return disagreement('state', expectedState, observed.state);
      }
      const expectedActors = expectedRunning(step.snapshot);
      const expectedChildren = expectedActors.map((running) => running.id);
      if (JSON.stringify(observed.running) !== JSON.stringify(expectedChildren)) {
        return disagreement('running actors', expectedChildren, observed.running);
      }
      const expectedCalls = expectedActors.map((running) => running.source);
      if (JSON.stringify(controls.running()) !== JSON.stringify(expectedCalls)) {
        return disagreement('pending calls', expectedCalls, controls.running());
      }
      const edge = graph.edges.get(state)?.find((candidate) => candidate.outcome === step.outcome);
      if (edge === undefined) return disagreement('graph edge', step.outcome.label, 'none');
      const expectedTelemetry = edge.observations.flatMap((observation) =>
        observation.kind === 'emitted' ? [telemetryKey(observation.event)] : [],
      );
      if (JSON.stringify(emitted) !== JSON.stringify(expectedTelemetry)) {
        return disagreement('telemetry', expectedTelemetry, emitted);
      }
      state = expectedState;
    }
    if (failures.length > 0) return `the actor failed: ${String(failures[0])}`;
    return null;
  } catch (error) {
    return `replay stopped after [${labels.join(' → ')}]: ${String(error)}`;
  } finally {
    actor.stop();
  }
}
