import type { LoopGraph } from './loop-graph.js';
import { userMessage } from './loop-outcomes.js';
import { leafState } from './observe-step.js';

function isIdle(graph: LoopGraph, state: string): boolean {
  const snapshot = graph.snapshots.get(state);
  return snapshot !== undefined && leafState(snapshot) === 'idle';
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

export interface Progress {
  /** Busy states where nothing but a new user message can happen. */
  readonly deadStates: readonly string[];
  /** A cycle of busy states the loop could go round forever without returning to idle. */
  readonly cycle: readonly string[] | null;
}

/**
 * Whatever the actors answer, a run must end: without new user messages (the host's input, which
 * only queues), the busy states form no cycle and every one has a way out. With finitely many
 * states, that means every path from every state reaches `idle`.
 */
export function checkProgress({ graph }: { graph: LoopGraph }): Progress {
  const successors = (state: string) =>
    (graph.edges.get(state) ?? []).filter((edge) => edge.outcome !== userMessage);
  const busy = [...graph.snapshots.keys()].filter((state) => !isIdle(graph, state));
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
      if (isIdle(graph, edge.to)) continue;
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
