import type { LoopEdge, LoopGraph } from './loop-graph.js';
import { abort, decidedCall, isHostInput } from './loop-outcomes.js';
import { leafState } from './observe-step.js';

function leafOf(graph: LoopGraph, state: string): string | undefined {
  const snapshot = graph.snapshots.get(state);
  return snapshot === undefined ? undefined : leafState(snapshot);
}

function isIdle(graph: LoopGraph, state: string): boolean {
  return leafOf(graph, state) === 'idle';
}

/** States from which no sequence of events leads back to `idle`. */
export function statesThatCannotReachIdle({ graph }: { graph: LoopGraph }): string[] {
  const predecessors = new Map<string, string[]>();
  for (const [from, edges] of graph.edges) {
    for (const edge of edges) {
      const list = predecessors.get(edge.to) ?? [];
      list.push(from);
      predecessors.set(edge.to, list);
    }
  }
  const reaches = new Set([...graph.snapshots.keys()].filter((state) => isIdle(graph, state)));
  const queue = [...reaches];
  for (let index = 0; index < queue.length; index++) {
    for (const predecessor of predecessors.get(queue[index] ?? '') ?? []) {
      if (reaches.has(predecessor)) continue;
      reaches.add(predecessor);
      queue.push(predecessor);
    }
  }
  return [...graph.snapshots.keys()].filter((state) => !reaches.has(state));
}

/** An edge the loop takes by itself: an invoked actor finished or failed. */
export function isActorOutcome(edge: LoopEdge): boolean {
  return !isHostInput(edge.outcome);
}

/** A decision, either way, on a call the state waits for (by the machine's own list). */
export function decidesAwaitedCall(graph: LoopGraph, edge: LoopEdge): boolean {
  const callId = decidedCall(edge.outcome);
  const from = graph.snapshots.get(edge.from);
  return callId !== null && (from?.context.awaitingApproval ?? []).includes(callId);
}

/** Busy states that only outside input (a message, a decision, an abort) can move on. */
export function statesWaitingForInput({ graph }: { graph: LoopGraph }): string[] {
  return [...graph.edges]
    .filter(([state, edges]) => !isIdle(graph, state) && !edges.some(isActorOutcome))
    .map(([state]) => state);
}

/** Waiting states where the host cannot decide each awaited call both ways, or cannot abort. */
export function undecidableWaits({ graph }: { graph: LoopGraph }): string[] {
  const problems: string[] = [];
  for (const [state, edges] of graph.edges) {
    const snapshot = graph.snapshots.get(state);
    if (snapshot === undefined || leafState(snapshot) !== 'awaitingApproval') continue;
    const takes = (label: string) =>
      edges.some((edge) => edge.outcome.label === label && edge.to !== state);
    for (const callId of snapshot.context.awaitingApproval ?? []) {
      for (const answer of ['approve', 'deny']) {
        if (!takes(`${answer} ${callId}`)) problems.push(`${state}: no '${answer} ${callId}'`);
      }
    }
    if (!edges.some((edge) => edge.outcome === abort && leafOf(graph, edge.to) === 'aborting')) {
      problems.push(`${state}: abort does not lead to aborting`);
    }
  }
  return problems;
}

export interface Progress {
  /** Busy states, other than those allowed to wait, that no followed edge leaves. */
  readonly deadStates: readonly string[];
  /** A cycle of busy states the loop could go round forever without returning to idle. */
  readonly cycle: readonly string[] | null;
}

/**
 * Whatever the actors answer, a run must end: following only the given edges, the busy states
 * (minus those that may wait, which end a path like idle) form no cycle and every one has a way
 * out. With finitely many states, every path of followed edges then reaches idle or a wait.
 */
export function checkProgress({
  graph,
  follows = isActorOutcome,
  mayWait = () => false,
}: {
  graph: LoopGraph;
  /** The edges a path may take: by default only actors finishing or failing. */
  follows?: (edge: LoopEdge) => boolean;
  /** Busy states where a path may stop to wait, for outside input the check does not give. */
  mayWait?: (state: string) => boolean;
}): Progress {
  const successors = (state: string) => (graph.edges.get(state) ?? []).filter(follows);
  const ends = (state: string) => isIdle(graph, state) || mayWait(state);
  const busy = [...graph.snapshots.keys()].filter((state) => !ends(state));
  const deadStates = busy.filter((state) => successors(state).length === 0);

  // Iterative depth-first search: grey states are on the current path, so an edge to one closes a cycle.
  const colour = new Map<string, 'grey' | 'black'>();
  for (const root of busy) {
    if (colour.has(root)) continue;
    const stack: { state: string; next: number; label: string }[] = [
      { state: root, next: 0, label: '' },
    ];
    colour.set(root, 'grey');
    while (stack.length > 0) {
      const frame = stack[stack.length - 1];
      if (frame === undefined) break;
      const edge = successors(frame.state)[frame.next++];
      if (edge === undefined) {
        colour.set(frame.state, 'black');
        stack.pop();
        continue;
      }
      if (ends(edge.to)) continue;
      const seen = colour.get(edge.to);
      if (seen === 'grey') {
        const start = stack.findIndex((entry) => entry.state === edge.to);
        const cycle = [...stack.slice(start + 1).map((entry) => entry.label), edge.outcome.label];
        return { deadStates, cycle };
      }
      if (seen === undefined) {
        colour.set(edge.to, 'grey');
        stack.push({ state: edge.to, next: 0, label: edge.outcome.label });
      }
    }
  }
  return { deadStates, cycle: null };
}
