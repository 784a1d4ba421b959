import type { EventObject } from 'xstate';
import type { StatePath } from 'xstate/graph';
import type { LoopGraph } from './loop-graph.js';
import { serializeLoopState } from './loop-graph.js';
import type { MonitorState } from './loop-invariants.js';
import { advanceMonitor, initialMonitor } from './loop-invariants.js';
import type { LoopEvent, Outcome } from './loop-outcomes.js';
import { outcomeOfEvent } from './loop-outcomes.js';
import { type LoopSnapshot, leafState } from './observe-step.js';

export type LoopPath = StatePath<LoopSnapshot, EventObject>;

/** A path as the replay needs it: the outcome of each step and the state it led to. */
export interface PathStep {
  readonly outcome: Outcome;
  readonly snapshot: LoopSnapshot;
}

/**
 * The graph utilities return steps as {event, state after it}, with a synthetic `xstate.init`
 * first; this keeps that first state as the start and names each later event by its outcome.
 */
export function stepsOf(path: LoopPath): { initial: LoopSnapshot; steps: PathStep[] } {
  const [first, ...rest] = path.steps;
  if (first === undefined) throw new Error('a path has at least its initial step');
  return {
    initial: first.state,
    steps: rest.map((step) => ({
      outcome: outcomeOfEvent(step.event as LoopEvent),
      snapshot: step.state,
    })),
  };
}

/**
 * Walks one path produced by `getShortestPaths` / `getSimplePaths` along the annotated graph,
 * checking that both agree on every state and running the invariants on each step.
 */
export function checkPath({ graph, path }: { graph: LoopGraph; path: LoopPath }): string[] {
  const cap = graph.configuration.input.maxConsecutiveCompactions ?? 3;
  const maxSteps = graph.configuration.input.maxStepsPerRun ?? Number.POSITIVE_INFINITY;
  const { initial, steps } = stepsOf(path);
  const labels: string[] = [];
  // Complete runs begin just after RunStarted; shortest paths begin in idle.
  let current: MonitorState = { ...initialMonitor, runOpen: leafState(initial) !== 'idle' };
  let state = serializeLoopState(initial);
  for (const step of steps) {
    labels.push(step.outcome.label);
    const edge = graph.edges.get(state)?.find((candidate) => candidate.outcome === step.outcome);
    const next = serializeLoopState(step.snapshot);
    if (edge === undefined || edge.to !== next) {
      return [`the path and the adjacency map disagree after ${labels.join(' → ')}`];
    }
    const advanced = advanceMonitor({
      monitor: current,
      edge,
      next: step.snapshot,
      cap,
      maxSteps,
    });
    if (advanced.violations.length > 0) {
      return advanced.violations.map((violation) => `${violation} — path: ${labels.join(' → ')}`);
    }
    current = advanced.monitor;
    state = next;
  }
  return [];
}
