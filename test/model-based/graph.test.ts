import { agentLoopMachine } from 'loopkeeper';
import { afterAll, describe, expect, it } from 'vitest';
import { getShortestPaths, getSimplePaths } from 'xstate/graph';
import {
  graphConfigurations,
  loopConfiguration,
  simplePathConfigurations,
} from './support/loop-configurations.js';
import type { LoopConfiguration, LoopGraph } from './support/loop-graph.js';
import { buildLoopGraph, completeRunOptions, traversalOptions } from './support/loop-graph.js';
import type { ProductExploration } from './support/loop-invariants.js';
import {
  advanceMonitor,
  emergencyPruneBound,
  exploreAllPaths,
  initialMonitor,
} from './support/loop-invariants.js';
import { checkProgress, statesThatCannotReachIdle } from './support/loop-liveness.js';
import { actorOutcomes } from './support/loop-outcomes.js';
import { leafState } from './support/observe-step.js';
import { checkPath } from './support/path-check.js';

const busyStates = [
  'beginning',
  'inferring',
  'toolResult',
  'mutating',
  'checkingBudget',
  'compacting',
  'emergencyPruning',
  'finishing',
  'aborting',
  'compactingNow',
  'recordingPlan',
];

const report: string[] = [];
const totals = { reachableStates: 0, edges: 0, productStates: 0, pathsChecked: 0 };

afterAll(() => {
  console.log(
    [
      'agentLoopMachine graph proofs',
      ...report,
      `total: ${totals.reachableStates} reachable states, ${totals.edges} transitions, ` +
        `${totals.productStates} (state, invariant) pairs covering every path, ` +
        `${totals.pathsChecked} explicit paths checked`,
    ].join('\n'),
  );
});

/** One traversal per configuration, shared by the tests that read it. */
function analyse(configuration: LoopConfiguration) {
  let analysis: { graph: LoopGraph; exploration: ProductExploration } | undefined;
  return () => {
    if (analysis === undefined) {
      const graph = buildLoopGraph({ configuration });
      analysis = { graph, exploration: exploreAllPaths({ graph }) };
      totals.reachableStates += graph.snapshots.size;
      totals.edges += graph.edgeCount;
      totals.productStates += analysis.exploration.productStates;
    }
    return analysis;
  };
}

describe('agentLoopMachine traversed with xstate/graph', () => {
  describe.each(graphConfigurations)('$label', (configuration) => {
    const cap = configuration.input.maxConsecutiveCompactions ?? 3;
    const hasCompactor = configuration.input.compactor !== null;
    const analysis = analyse(configuration);

    it('reaches every busy state and the compaction cap, so the proofs below are not vacuous', () => {
      const { graph, exploration } = analysis();
      const reached = new Set([...graph.snapshots.values()].map(leafState));
      const unreachable = new Set([
        ...(hasCompactor ? [] : ['compacting', 'emergencyPruning']),
        // With a cap of 0 no compaction is allowed; only the emergency prune is left.
        ...(cap === 0 ? ['compacting', 'compactingNow'] : []),
        ...(configuration.input.mutators?.length ? [] : ['mutating']),
      ]);
      const expected = busyStates.filter((state) => !unreachable.has(state));
      expect([...reached].sort()).toEqual(['idle', ...expected].sort());
      // The cap itself is reached: `compacting` entered as the cap-th consecutive compaction,
      // then the one emergency prune beyond it.
      expect(exploration.peaks.atCompacting).toBe(hasCompactor ? cap : 0);
      expect(exploration.peaks.sinceSuccess).toBe(hasCompactor ? cap + 1 : 0);
      // The emergency-prune bound is reached too: it is the real bound, not a loose one.
      expect(exploration.peaks.emergencySinceSuccess).toBe(
        hasCompactor
          ? emergencyPruneBound(cap, configuration.input.maxStepsPerRun ?? Number.POSITIVE_INFINITY)
          : 0,
      );
      expect(exploration.peaks.mutationsStarted).toBeGreaterThan(0);
    });

    it('never exceeds the compaction cap, never infers after an invalid mutation, and pairs every MutationStarted with its MutationFinished (and RunStarted with RunFinished), on every path', () => {
      const { graph, exploration } = analysis();
      expect(exploration.violations).toEqual([]);
      report.push(
        `${configuration.label}: ${graph.snapshots.size} reachable states, ${graph.edgeCount} transitions, ` +
          `${exploration.productStates} (state, invariant) pairs; at most ${exploration.peaks.sinceSuccess} ` +
          `consecutive compaction-state entries, ${exploration.peaks.sinceInference} between two inferences, ` +
          `${exploration.peaks.emergencySinceSuccess} emergency prunes between two successful inferences`,
      );
    });

    it('can return to idle from every reachable state, and with no new message always does', () => {
      const { graph } = analysis();
      expect(statesThatCannotReachIdle({ graph })).toEqual([]);
      expect(checkProgress({ graph })).toEqual({ deadStates: [], cycle: null });
    });

    it('holds the invariants along every shortest path, which follows the adjacency map step by step', () => {
      const paths = getShortestPaths(agentLoopMachine, traversalOptions(configuration));
      expect(paths.length).toBe(analysis().graph.snapshots.size);
      const violations = paths.flatMap((path) => checkPath({ graph: analysis().graph, path }));
      expect(violations).toEqual([]);
      totals.pathsChecked += paths.length;
      report.push(`${configuration.label}: ${paths.length} shortest paths checked`);
    });
  });

  describe.each(simplePathConfigurations)('$label', (configuration) => {
    it('holds the invariants along every complete run (every simple path from a run start to idle)', () => {
      const graph = buildLoopGraph({ configuration });
      const runs = getSimplePaths(agentLoopMachine, completeRunOptions(configuration));
      expect(runs.length).toBeGreaterThan(1000);
      const violations = runs.flatMap((path) => checkPath({ graph, path }));
      expect(violations).toEqual([]);
      totals.pathsChecked += runs.length;
      report.push(`${configuration.label}: ${runs.length} complete runs (simple paths) checked`);
    });
  });
});

/**
 * The proofs above pass on the real machine; these show they would fail on a broken one. Each
 * variant swaps one implementation of the real definition with `.provide()`.
 */
describe('the graph proofs catch a broken loop', () => {
  const configuration = loopConfiguration({ cap: 1 });

  it('reports a compaction cap that can be exceeded', () => {
    const uncapped = agentLoopMachine.provide({
      guards: { canCompact: ({ context }) => context.compactor !== null },
    });
    const { violations } = exploreAllPaths({
      graph: buildLoopGraph({ configuration, machine: uncapped }),
    });
    expect(
      violations.some((violation) =>
        violation.includes('compacting entered as consecutive compaction 2, cap 1'),
      ),
    ).toBe(true);
  });

  it('reports a MutationStarted without its MutationFinished', () => {
    const unpaired = agentLoopMachine.provide({ actions: { emitMutationFinished: () => {} } });
    const { violations } = exploreAllPaths({
      graph: buildLoopGraph({ configuration, machine: unpaired }),
    });
    expect(
      violations.some((violation) =>
        violation.includes('in checkingBudget the open mutation is redactor'),
      ),
    ).toBe(true);
  });

  it('reports a mutator loop that never returns to idle', () => {
    const endless = agentLoopMachine.provide({ guards: { hasPendingMutator: () => true } });
    const { cycle } = checkProgress({ graph: buildLoopGraph({ configuration, machine: endless }) });
    expect(cycle).toContain('mutating: mutator clean');
  });

  it('reports an inference right after a mutation that failed validation', () => {
    const graph = buildLoopGraph({ configuration });
    const inferring = [...graph.snapshots.values()].find(
      (snapshot) => leafState(snapshot) === 'inferring',
    );
    const invalid = actorOutcomes.mutating.find((outcome) => outcome.invalidMutation);
    if (inferring === undefined || invalid === undefined) throw new Error('fixture missing');
    const { violations } = advanceMonitor({
      monitor: { ...initialMonitor, runOpen: true },
      edge: { outcome: invalid, observations: [{ kind: 'invoked', source: 'callModel' }] },
      next: inferring,
      cap: 1,
    });
    expect(violations).toEqual([
      'an invalid mutation led to inferring, not a failed finish',
      'inferring was entered after a mutation failed validation',
    ]);
  });
});
