import { type AgentLoopInput, agentLoopMachine } from 'loopkeeper';
import type { AgentLoopEvent } from 'loopkeeper/machines';
import type { ActorLogic } from 'xstate';
import type { AdjacencyValue, SerializedEvent } from 'xstate/graph';
import { getAdjacencyMap } from 'xstate/graph';
import type { Outcome } from './loop-outcomes.js';
import {
  abort,
  actorOutcomes,
  asMachineEvent,
  decisions,
  hostRequests,
  invokedActor,
  isInvokingState,
  outcomeOfEvent,
  serializeLoopEvent,
  userMessage,
} from './loop-outcomes.js';
import type { LoopMachine, LoopSnapshot, Observation } from './observe-step.js';
import { initialStep, leafState, observeStep } from './observe-step.js';

/** A loop configuration the proofs run against. */
export interface LoopConfiguration {
  readonly label: string;
  readonly input: AgentLoopInput;
  /** Also send one user message while a run is busy, to cover the queue. */
  readonly queueWhileBusy: boolean;
}

const recordDecisionsId = invokedActor('recordingDecisions').id;

/**
 * How many queued decisions the running `recordDecisions` was given: it can record at most
 * those, not the ones queued while it writes. Read from the invoked actor's own input.
 */
export function decisionsBeingRecorded(snapshot: LoopSnapshot): number {
  const child = snapshot.children[recordDecisionsId];
  const input = child?.getSnapshot().input as { decisions?: readonly unknown[] } | undefined;
  return input?.decisions?.length ?? 0;
}

/**
 * Only the state, the counters the guards read and the outcome a run is closed with. Everything
 * else in context (run ids, the run counter, usage, the last error) would make every state
 * unique and the traversal endless, and none of it steers a transition. Of the approvals, the
 * ids of the calls still waiting (the guard on `tool.approval` reads them) and how many
 * decisions are queued and being recorded; what each decision says steers nothing.
 */
export function serializeLoopState(snapshot: LoopSnapshot): string {
  const { context } = snapshot;
  return JSON.stringify({
    state: leafState(snapshot),
    steps: context.steps,
    consecutiveCompactions: context.consecutiveCompactions,
    point: context.point,
    mutatorIndex: context.mutatorIndex,
    compactionReason: context.compactionReason,
    queue: context.queue.length,
    // Whether a plan or a compaction waits for idle: the guards of idle read them.
    pendingPlan: context.pendingPlan != null,
    pendingCompaction: context.pendingCompaction != null,
    // How the run is being closed: one `finishing` state records completed, step-limit and
    // failed runs alike, so the outcome tells those states apart.
    finishing: context.finishing?.outcome ?? null,
    awaiting: context.awaitingApproval ?? [],
    decisions: context.decisions?.length ?? 0,
    recording: decisionsBeingRecorded(snapshot),
  });
}

export function stateKeyOf(snapshot: LoopSnapshot): string {
  return leafState(snapshot);
}

/** Whether a run of this configuration can come to wait for approvals. */
export function mayAwaitApproval(configuration: LoopConfiguration): boolean {
  return configuration.input.approvals === true || (configuration.input.resume ?? null) !== null;
}

/** The most calls `gateTools` reports waiting at once. */
const mostAwaitedCalls = Math.max(
  ...actorOutcomes.gatingTools.map((outcome) =>
    'output' in outcome.event
      ? (outcome.event.output as { awaiting: readonly unknown[] }).awaiting.length
      : 0,
  ),
);

/** `recordDecisions` records the first n of the decisions it was given, at least one. */
function recordsWhatItWasGiven(snapshot: LoopSnapshot, outcome: Outcome): boolean {
  if (outcome.event.type !== `xstate.done.actor.${recordDecisionsId}`) {
    return true;
  }
  const output = (outcome.event as { output: { recorded: readonly unknown[] } }).output;
  return output.recorded.length <= decisionsBeingRecorded(snapshot);
}

/**
 * Where the host's decisions are offered: while calls wait and their decisions are written, and
 * just before (a decision sent early) and after (late). Every other state of a run takes
 * `tool.approval` by the same guard on `running` as these two, with no call waiting, like these.
 */
const decisionStates = new Set([
  'gatingTools',
  'awaitingApproval',
  'recordingDecisions',
  'toolResult',
]);

/**
 * The outcomes offered in a state: the user speaks in idle (and, before any run, asks for a
 * compaction or pins a plan); busy states get every actor outcome
 * (and abort); where a run can wait for approvals, the states around the wait also get every
 * decision, awaited or not, so decisions that come early, late, twice or for an unknown call
 * are covered.
 */
export function outcomesFor({
  snapshot,
  configuration,
}: {
  snapshot: LoopSnapshot;
  configuration: LoopConfiguration;
}): readonly Outcome[] {
  const stateKey = stateKeyOf(snapshot);
  // Offered in the first idle only, before any run: that reaches both states and every edge
  // out of them, while offered in every idle (whose context keeps the last run's counters) or
  // busy state (where they wait for idle, which the loop tests cover) they would multiply the
  // states and runs the proofs enumerate.
  const requests =
    snapshot.context.runs === 0
      ? hostRequests.filter((request) =>
          request.event.type === 'compact'
            ? snapshot.context.pendingCompaction == null
            : snapshot.context.pendingPlan == null,
        )
      : [];
  if (stateKey === 'idle') return [userMessage, ...requests];
  // More queued decisions than calls can wait means the loop took a decision it had to ignore
  // (the invariants report that edge); going on would queue them without end.
  if ((snapshot.context.decisions?.length ?? 0) > mostAwaitedCalls) return [];
  const waiting = stateKey === 'awaitingApproval';
  if (!waiting && !isInvokingState(stateKey)) return [];
  const outcomes = waiting
    ? []
    : actorOutcomes[stateKey].filter((outcome) => recordsWhatItWasGiven(snapshot, outcome));
  if (snapshot.can(asMachineEvent(abort.event))) outcomes.push(abort);
  if (mayAwaitApproval(configuration) && decisionStates.has(stateKey)) outcomes.push(...decisions);
  if (configuration.queueWhileBusy && snapshot.context.queue.length === 0) {
    outcomes.push(userMessage);
  }
  return outcomes;
}

export interface LoopEdge {
  readonly from: string;
  readonly outcome: Outcome;
  readonly to: string;
  readonly observations: readonly Observation[];
}

export interface LoopGraph {
  readonly configuration: LoopConfiguration;
  readonly initial: string;
  /** What starting the loop made observable: a resumed run starts (RunStarted) right away. */
  readonly initialObservations: readonly Observation[];
  readonly snapshots: ReadonlyMap<string, LoopSnapshot>;
  readonly edges: ReadonlyMap<string, readonly LoopEdge[]>;
  readonly edgeCount: number;
}

export function traversalOptions(configuration: LoopConfiguration) {
  return {
    input: configuration.input,
    events: (snapshot: LoopSnapshot) =>
      outcomesFor({ snapshot, configuration }).map((outcome) => asMachineEvent(outcome.event)),
    serializeState: serializeLoopState,
    serializeEvent: serializeLoopEvent,
    // A guard against a serialization that stops abstracting: fail instead of running forever.
    limit: 500_000,
  };
}

/** Traverses the real machine with `xstate/graph` and annotates each edge with what it emits. */
export function buildLoopGraph({
  configuration,
  machine = agentLoopMachine,
}: {
  configuration: LoopConfiguration;
  machine?: LoopMachine;
}): LoopGraph {
  // `getAdjacencyMap` types its logic with the default emitted-event type, which a machine that
  // declares its `emitted` telemetry does not match; the logic itself is the real machine.
  const logic = machine as unknown as ActorLogic<LoopSnapshot, AgentLoopEvent, AgentLoopInput>;
  const adjacency = getAdjacencyMap(logic, traversalOptions(configuration));
  const snapshots = new Map<string, LoopSnapshot>();
  const edges = new Map<string, LoopEdge[]>();
  let edgeCount = 0;
  for (const [from, value] of Object.entries(adjacency)) {
    snapshots.set(from, value.state);
    const outgoing: LoopEdge[] = [];
    // The map's keys are branded strings, which `Object.values` cannot see through.
    const transitions = Object.values(value.transitions) as AdjacencyValue<
      LoopSnapshot,
      AgentLoopEvent
    >['transitions'][SerializedEvent][];
    for (const { event, state } of transitions) {
      const observed = observeStep({ snapshot: value.state, event, machine });
      const to = serializeLoopState(state);
      if (serializeLoopState(observed.next) !== to) {
        throw new Error(`graph and pure transition disagree after ${from} --${event.type}-->`);
      }
      outgoing.push({
        from,
        outcome: outcomeOfEvent(event),
        to,
        observations: observed.observations,
      });
    }
    edgeCount += outgoing.length;
    edges.set(from, outgoing);
  }
  const initial = initialStep({ input: configuration.input, machine });
  return {
    configuration,
    initial: serializeLoopState(initial.snapshot),
    initialObservations: initial.observations,
    snapshots,
    edges,
    edgeCount,
  };
}

/** The snapshot right after the first user message: where every run begins. */
export function runStart({ configuration }: { configuration: LoopConfiguration }): LoopSnapshot {
  const initial = initialStep({ input: configuration.input }).snapshot;
  return observeStep({ snapshot: initial, event: userMessage.event }).next;
}

/**
 * Options for `getSimplePaths` that list complete runs: from the run's start to `idle`, where
 * traversal stops, so each path is one run the loop can take.
 */
export function completeRunOptions(configuration: LoopConfiguration) {
  const isIdle = (snapshot: LoopSnapshot) => leafState(snapshot) === 'idle';
  return {
    ...traversalOptions(configuration),
    fromState: runStart({ configuration }),
    toState: isIdle,
  };
}
