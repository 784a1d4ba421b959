import type { TelemetryEvent } from 'loopkeeper';
import type { LoopEdge, LoopGraph } from './loop-graph.js';
import { decidedCall, invokedActor } from './loop-outcomes.js';
import { type LoopSnapshot, leafState, type Observation } from './observe-step.js';

/**
 * What the invariants remember along a path. Every field is bounded while the invariants hold,
 * so the product of graph states and monitor states is finite and can be explored completely.
 */
export interface MonitorState {
  /** The mutator whose MutationStarted has not been matched by a MutationFinished yet. */
  readonly openMutation: string | null;
  /** Compaction-state entries since the last successful inference or the start of the run. */
  readonly sinceSuccess: number;
  /** Compaction-state entries since `inferring` was last entered or the run began. */
  readonly sinceInference: number;
  /** `emergencyPruning` entries since the last successful inference or the start of the run. */
  readonly emergencySinceSuccess: number;
  /** `emergencyPruning` entries in this run. */
  readonly emergencyInRun: number;
  /** A mutation in this run produced a transcript that failed validation. */
  readonly invalidInRun: boolean;
  /** RunStarted was emitted and its RunFinished not yet. */
  readonly runOpen: boolean;
  /** Calls `gateTools` reported waiting for a decision, until the step's tools run or the run ends. */
  readonly awaited: readonly string[];
  /** Decisions on awaited calls the host sent and the log does not hold yet, in arrival order. */
  readonly queued: readonly string[];
  /** Awaited calls whose decision `recordDecisions` reported in the log. */
  readonly recorded: readonly string[];
}

export const initialMonitor: MonitorState = {
  openMutation: null,
  sinceSuccess: 0,
  sinceInference: 0,
  emergencySinceSuccess: 0,
  emergencyInRun: 0,
  invalidInRun: false,
  runOpen: false,
  awaited: [],
  queued: [],
  recorded: [],
};

const noApprovals = { awaited: [], queued: [], recorded: [] } as const;

/** The largest counts one step produced, so a test can show the caps are actually reached. */
export interface StepPeaks {
  /** Consecutive compaction-state entries counted when `compacting` was entered. */
  readonly atCompacting: number;
  readonly sinceSuccess: number;
  readonly sinceInference: number;
  readonly emergencySinceSuccess: number;
  readonly mutationsStarted: number;
  /** The most calls waiting for a decision at once. */
  readonly awaitedAtOnce: number;
  /** The most recorded decisions a tool step had when its tools started. */
  readonly recordedBeforeTools: number;
  /** Decisions the loop ignored (not awaited, or decided already) while calls were waiting. */
  readonly ignoredWhileWaiting: number;
}

export const noPeaks: StepPeaks = {
  atCompacting: 0,
  sinceSuccess: 0,
  sinceInference: 0,
  emergencySinceSuccess: 0,
  mutationsStarted: 0,
  awaitedAtOnce: 0,
  recordedBeforeTools: 0,
  ignoredWhileWaiting: 0,
};

/** The larger of each peak; counts (mutations started, decisions ignored) add up. */
export function mergePeaks(left: StepPeaks, right: StepPeaks): StepPeaks {
  return {
    atCompacting: Math.max(left.atCompacting, right.atCompacting),
    sinceSuccess: Math.max(left.sinceSuccess, right.sinceSuccess),
    sinceInference: Math.max(left.sinceInference, right.sinceInference),
    emergencySinceSuccess: Math.max(left.emergencySinceSuccess, right.emergencySinceSuccess),
    mutationsStarted: left.mutationsStarted + right.mutationsStarted,
    awaitedAtOnce: Math.max(left.awaitedAtOnce, right.awaitedAtOnce),
    recordedBeforeTools: Math.max(left.recordedBeforeTools, right.recordedBeforeTools),
    ignoredWhileWaiting: left.ignoredWhileWaiting + right.ignoredWhileWaiting,
  };
}

/**
 * The most emergency prunes between two successful inferences. Entries are capped at cap + 1,
 * `compacting` is preferred while below the cap, and two emergency prunes are separated by a
 * compaction except for the last entry: at most ⌊cap/2⌋ + 1. And every emergency prune but the
 * last is followed by an inference, which counts a step: at most maxStepsPerRun + 1 in a run.
 * So min(⌊cap/2⌋ + 1, maxStepsPerRun + 1): cap 3 gives 2; cap 8 gives 5, or 4 with 3 steps.
 */
export function emergencyPruneBound(cap: number, maxSteps = Number.POSITIVE_INFINITY): number {
  return Math.min(Math.floor(cap / 2) + 1, maxSteps + 1);
}

const sources = {
  beginRun: invokedActor('beginning').source,
  resumeRun: invokedActor('resuming').source,
  callModel: invokedActor('inferring').source,
  runTools: invokedActor('toolResult').source,
  runMutator: invokedActor('mutating').source,
  compact: invokedActor('compacting').source,
  emergencyPrune: invokedActor('emergencyPruning').source,
  compactNow: invokedActor('compactingNow').source,
};
const inferenceDone = `xstate.done.actor.${invokedActor('inferring').id}`;
const gateDone = `xstate.done.actor.${invokedActor('gatingTools').id}`;
const recordDone = `xstate.done.actor.${invokedActor('recordingDecisions').id}`;
/** What may not happen between a call's approval request and its step's tools running. */
const notWhileWaiting = new Set([
  sources.runMutator,
  sources.compact,
  sources.emergencyPrune,
  sources.callModel,
]);
const mutationStates = new Set(['mutating', 'compacting', 'emergencyPruning']);
/** States where no run is open: idle, and the work a host asked for between runs. */
const betweenRunStates = new Set(['idle', 'compactingNow', 'recordingPlan']);

interface Walk {
  monitor: MonitorState;
  peaks: StepPeaks;
  readonly violations: string[];
}

function enterCompactionState(
  walk: Walk,
  isCompaction: boolean,
  cap: number,
  maxSteps: number,
): void {
  const monitor = {
    ...walk.monitor,
    sinceSuccess: walk.monitor.sinceSuccess + 1,
    sinceInference: walk.monitor.sinceInference + 1,
    emergencySinceSuccess: walk.monitor.emergencySinceSuccess + (isCompaction ? 0 : 1),
    emergencyInRun: walk.monitor.emergencyInRun + (isCompaction ? 0 : 1),
  };
  const bound = emergencyPruneBound(cap, maxSteps);
  if (monitor.emergencySinceSuccess > bound) {
    walk.violations.push(
      `emergency prune ${monitor.emergencySinceSuccess} since the last successful inference, bound ${bound} (cap ${cap}, ${maxSteps} steps)`,
    );
  }
  if (monitor.emergencyInRun > maxSteps + 1) {
    walk.violations.push(
      `emergency prune ${monitor.emergencyInRun} in one run of ${maxSteps} steps`,
    );
  }
  // `compacting` may only be entered below the cap; the emergency prune is the one extra entry.
  const limit = isCompaction ? cap : cap + 1;
  const state = isCompaction ? 'compacting' : 'emergencyPruning';
  if (monitor.sinceSuccess > limit) {
    walk.violations.push(
      `${state} entered as consecutive compaction ${monitor.sinceSuccess}, cap ${cap}`,
    );
  }
  if (monitor.sinceInference > cap + 1) {
    walk.violations.push(
      `${monitor.sinceInference} compaction-state entries between two inferences, cap ${cap}`,
    );
  }
  walk.monitor = monitor;
  walk.peaks = {
    ...walk.peaks,
    atCompacting: isCompaction
      ? Math.max(walk.peaks.atCompacting, monitor.sinceSuccess)
      : walk.peaks.atCompacting,
    sinceSuccess: Math.max(walk.peaks.sinceSuccess, monitor.sinceSuccess),
    sinceInference: Math.max(walk.peaks.sinceInference, monitor.sinceInference),
    emergencySinceSuccess: Math.max(
      walk.peaks.emergencySinceSuccess,
      monitor.emergencySinceSuccess,
    ),
  };
}

function observe(walk: Walk, observation: Observation, cap: number, maxSteps: number): void {
  const { monitor, violations } = walk;
  if (observation.kind === 'invoked') {
    if (monitor.awaited.length > 0 && notWhileWaiting.has(observation.source)) {
      violations.push(
        `${observation.source} ran while ${monitor.awaited.join(', ')} waited for approval`,
      );
    }
    if (observation.source === sources.beginRun || observation.source === sources.resumeRun) {
      if (monitor.openMutation !== null) {
        violations.push(`a run started while ${monitor.openMutation} was still mutating`);
      }
      walk.monitor = { ...initialMonitor, runOpen: monitor.runOpen };
    } else if (observation.source === sources.runTools) {
      const undecided = monitor.awaited.filter((callId) => !monitor.recorded.includes(callId));
      if (undecided.length > 0) {
        violations.push(`tools ran while ${undecided.join(', ')} had no recorded decision`);
      }
      walk.monitor = { ...monitor, ...noApprovals };
      walk.peaks = {
        ...walk.peaks,
        recordedBeforeTools: Math.max(walk.peaks.recordedBeforeTools, monitor.recorded.length),
      };
    } else if (observation.source === sources.callModel) {
      if (monitor.invalidInRun) {
        violations.push('inferring was entered after a mutation failed validation');
      }
      walk.monitor = { ...monitor, sinceInference: 0 };
    } else if (observation.source === sources.compactNow) {
      // A compaction the host asked for between runs starts a fresh sequence of one step.
      walk.monitor = { ...monitor, sinceSuccess: 1, sinceInference: 0, emergencySinceSuccess: 0 };
    } else if (observation.source === sources.compact) {
      enterCompactionState(walk, true, cap, maxSteps);
    } else if (observation.source === sources.emergencyPrune) {
      enterCompactionState(walk, false, cap, maxSteps);
    }
    return;
  }
  const { event } = observation;
  if (event.type === 'MutationStarted') {
    if (monitor.openMutation !== null) {
      violations.push(`${event.mutator} started before ${monitor.openMutation} finished`);
    }
    walk.monitor = { ...monitor, openMutation: event.mutator };
    walk.peaks = { ...walk.peaks, mutationsStarted: walk.peaks.mutationsStarted + 1 };
  } else if (event.type === 'MutationFinished') {
    if (monitor.openMutation !== event.mutator) {
      violations.push(
        `${event.mutator} finished, but the open mutation was ${monitor.openMutation ?? 'none'}`,
      );
    }
    walk.monitor = { ...monitor, openMutation: null };
  } else if (event.type === 'RunStarted') {
    if (monitor.runOpen) violations.push('a run started before the previous one finished');
    walk.monitor = { ...monitor, runOpen: true };
  } else if (event.type === 'RunFinished') {
    if (!monitor.runOpen) violations.push('RunFinished without a RunStarted');
    walk.monitor = { ...monitor, runOpen: false, ...noApprovals };
  } else if (event.type === 'CompactionStarted' && event.attempt > cap) {
    violations.push(`CompactionStarted reports attempt ${event.attempt}, cap ${cap}`);
  }
}

function outputOf<Output>(edge: Pick<LoopEdge, 'outcome'>): Output {
  return (edge.outcome.event as unknown as { readonly output: Output }).output;
}

function emitted(edge: Pick<LoopEdge, 'observations'>): TelemetryEvent[] {
  return edge.observations.flatMap((observation) =>
    observation.kind === 'emitted' ? [observation.event] : [],
  );
}

/**
 * The approval protocol, judged from what the actors reported and the host sent, not from the
 * machine's own bookkeeping: which calls wait, which decisions count (an awaited call's first),
 * which are in the log. A decision that counts must change the loop's state; any other decision
 * must change nothing at all.
 */
function followApprovals(
  walk: Walk,
  edge: Pick<LoopEdge, 'from' | 'outcome' | 'to' | 'observations'>,
): void {
  const { monitor, violations } = walk;
  const type = edge.outcome.event.type;
  if (type === gateDone) {
    const awaited = outputOf<{ awaiting: readonly { callId: string }[] }>(edge).awaiting.map(
      (call) => call.callId,
    );
    const announced = emitted(edge).flatMap((event) =>
      event.type === 'ApprovalRequested' ? event.calls.map((call) => call.callId) : [],
    );
    if (announced.join() !== awaited.join()) {
      violations.push(`ApprovalRequested named [${announced}], the gate reported [${awaited}]`);
    }
    walk.monitor = { ...monitor, awaited, queued: [], recorded: [] };
    walk.peaks = {
      ...walk.peaks,
      awaitedAtOnce: Math.max(walk.peaks.awaitedAtOnce, awaited.length),
    };
    return;
  }
  if (type === recordDone) {
    const count = outputOf<{ recorded: readonly unknown[] }>(edge).recorded.length;
    if (count > monitor.queued.length) {
      violations.push(`${count} decisions recorded, ${monitor.queued.length} were sent`);
    }
    const announced = emitted(edge).filter((event) => event.type === 'ApprovalDecided').length;
    if (announced !== count) violations.push(`${announced} ApprovalDecided for ${count} recorded`);
    walk.monitor = {
      ...monitor,
      recorded: [...monitor.recorded, ...monitor.queued.slice(0, count)],
      queued: monitor.queued.slice(count),
    };
    return;
  }
  const callId = decidedCall(edge.outcome);
  if (callId === null) return;
  const counts =
    monitor.awaited.includes(callId) &&
    !monitor.queued.includes(callId) &&
    !monitor.recorded.includes(callId);
  if (counts) {
    if (edge.to === edge.from) violations.push(`the decision on awaited ${callId} was dropped`);
    walk.monitor = { ...monitor, queued: [...monitor.queued, callId] };
  } else {
    if (edge.to !== edge.from || edge.observations.length > 0) {
      violations.push(`a decision on ${callId}, which no call awaits, changed the loop`);
    }
    if (monitor.awaited.length > 0) {
      walk.peaks = { ...walk.peaks, ignoredWhileWaiting: walk.peaks.ignoredWhileWaiting + 1 };
    }
  }
}

/**
 * Advances the invariants over one edge and returns every broken one. `next` is the machine's
 * snapshot after the edge, so its own counters can be checked against what was observed.
 */
export function advanceMonitor({
  monitor,
  edge,
  next,
  cap,
  maxSteps = Number.POSITIVE_INFINITY,
}: {
  monitor: MonitorState;
  edge: Pick<LoopEdge, 'from' | 'outcome' | 'to' | 'observations'>;
  next: LoopSnapshot;
  cap: number;
  /** The run's step limit; the emergency-prune bound depends on it. */
  maxSteps?: number;
}): { readonly monitor: MonitorState; readonly peaks: StepPeaks; readonly violations: string[] } {
  const walk: Walk = { monitor, peaks: noPeaks, violations: [] };
  if (edge.outcome.event.type === inferenceDone) {
    walk.monitor = { ...walk.monitor, sinceSuccess: 0, emergencySinceSuccess: 0 };
  }
  if (edge.outcome.invalidMutation) {
    walk.monitor = { ...walk.monitor, invalidInRun: true };
    if (leafState(next) !== 'finishing' || next.context.finishing?.outcome !== 'failed') {
      walk.violations.push(`an invalid mutation led to ${leafState(next)}, not a failed finish`);
    }
  }
  followApprovals(walk, edge);
  for (const observation of edge.observations) observe(walk, observation, cap, maxSteps);

  const counted = next.context.consecutiveCompactions;
  if (counted !== walk.monitor.sinceSuccess) {
    walk.violations.push(
      `context counts ${counted} consecutive compactions, ${walk.monitor.sinceSuccess} were entered`,
    );
  }
  const state = leafState(next);
  if (betweenRunStates.has(state) === walk.monitor.runOpen) {
    walk.violations.push(`in ${state} a run is ${walk.monitor.runOpen ? '' : 'not '}open`);
  }
  const inMutationState = mutationStates.has(state);
  if (inMutationState !== (walk.monitor.openMutation !== null)) {
    walk.violations.push(`in ${state} the open mutation is ${walk.monitor.openMutation ?? 'none'}`);
  }
  return walk;
}

/** The monitor after what starting the loop made observable (a resumed run's RunStarted). */
export function startMonitor({ graph }: { graph: LoopGraph }): {
  readonly monitor: MonitorState;
  readonly violations: readonly string[];
} {
  const cap = graph.configuration.input.maxConsecutiveCompactions ?? 3;
  const maxSteps = graph.configuration.input.maxStepsPerRun ?? Number.POSITIVE_INFINITY;
  const walk: Walk = { monitor: initialMonitor, peaks: noPeaks, violations: [] };
  for (const observation of graph.initialObservations) observe(walk, observation, cap, maxSteps);
  const initial = graph.snapshots.get(graph.initial);
  if (initial !== undefined && (leafState(initial) === 'idle') === walk.monitor.runOpen) {
    walk.violations.push(
      `the loop starts in ${leafState(initial)} with the run open: ${walk.monitor.runOpen}`,
    );
  }
  return walk;
}

export interface ProductExploration {
  /** Reachable pairs of (graph state, monitor state): every path of any length ends in one. */
  readonly productStates: number;
  readonly violations: readonly string[];
  /** The largest counts seen on any path: equal to the caps when the caps are reachable. */
  readonly peaks: StepPeaks;
}

/**
 * Explores the product of the graph with the invariant monitor. A violation on any path of any
 * length, across any number of runs, shows up as a violating edge here, so this checks every
 * path rather than a sample. Each violation names the shortest path that shows it.
 */
export function exploreAllPaths({ graph }: { graph: LoopGraph }): ProductExploration {
  const cap = graph.configuration.input.maxConsecutiveCompactions ?? 3;
  const maxSteps = graph.configuration.input.maxStepsPerRun ?? Number.POSITIVE_INFINITY;
  const started = startMonitor({ graph });
  const start = `${graph.initial}|${JSON.stringify(started.monitor)}`;
  const parents = new Map<string, { parent: string; label: string } | null>([[start, null]]);
  const queue: { state: string; monitor: MonitorState; key: string }[] = [
    { state: graph.initial, monitor: started.monitor, key: start },
  ];
  const violations: string[] = started.violations.map((violation) => `${violation} — at start`);
  let peaks = noPeaks;
  const witness = (key: string, last: string): string => {
    const labels = [last];
    for (let link = parents.get(key); link; link = parents.get(link.parent)) {
      labels.unshift(link.label);
    }
    return labels.join(' → ');
  };
  for (let index = 0; index < queue.length; index++) {
    const current = queue[index];
    if (current === undefined) break;
    for (const edge of graph.edges.get(current.state) ?? []) {
      const next = graph.snapshots.get(edge.to);
      if (next === undefined) throw new Error(`edge to unknown state ${edge.to}`);
      const advanced = advanceMonitor({ monitor: current.monitor, edge, next, cap, maxSteps });
      if (advanced.violations.length > 0) {
        const path = witness(current.key, edge.outcome.label);
        violations.push(`${advanced.violations.join('; ')} — path: ${path}`);
        continue;
      }
      peaks = mergePeaks(peaks, advanced.peaks);
      const key = `${edge.to}|${JSON.stringify(advanced.monitor)}`;
      if (parents.has(key)) continue;
      parents.set(key, { parent: current.key, label: edge.outcome.label });
      queue.push({ state: edge.to, monitor: advanced.monitor, key });
    }
  }
  return { productStates: parents.size, violations, peaks };
}
