import { agentLoopMachine } from 'loopkeeper';
import { afterAll, describe, expect, it } from 'vitest';
import { getShortestPaths, getSimplePaths } from 'xstate/graph';
import {
  graphConfigurations,
  loopConfiguration,
  simplePathConfigurations,
} from './support/loop-configurations.js';
import type { LoopConfiguration, LoopEdge, LoopGraph } from './support/loop-graph.js';
import {
  buildLoopGraph,
  completeRunOptions,
  mayAwaitApproval,
  traversalOptions,
} from './support/loop-graph.js';
import type { ProductExploration } from './support/loop-invariants.js';
import {
  advanceMonitor,
  emergencyPruneBound,
  exploreAllPaths,
  initialMonitor,
} from './support/loop-invariants.js';
import {
  checkProgress,
  decidesAwaitedCall,
  isActorOutcome,
  statesThatCannotReachIdle,
  statesWaitingForInput,
  undecidableWaits,
} from './support/loop-liveness.js';
import { abort, actorOutcomes } from './support/loop-outcomes.js';
import { busyStates } from './support/machine-states.js';
import { leafState } from './support/observe-step.js';
import { checkPath } from './support/path-check.js';

const report: string[] = [];
const totals = { reachableStates: 0, edges: 0, productStates: 0, pathsChecked: 0 };
const approvalStates = ['gatingTools', 'awaitingApproval', 'recordingDecisions'];

function leafOf(graph: LoopGraph, state: string): string | undefined {
  const snapshot = graph.snapshots.get(state);
  return snapshot === undefined ? undefined : leafState(snapshot);
}

function isWaiting(graph: LoopGraph, state: string): boolean {
  return leafOf(graph, state) === 'awaitingApproval';
}

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
  // Titled by plain describe: describe.each cuts a '$label' off at 40 characters.
  for (const configuration of graphConfigurations) {
    describe(configuration.label, () => {
      const cap = configuration.input.maxConsecutiveCompactions ?? 3;
      const hasCompactor = configuration.input.compactor !== null;
      const waits = mayAwaitApproval(configuration);
      const analysis = analyse(configuration);

      it('reaches every busy state and the compaction cap, so the proofs below are not vacuous', () => {
        const { graph, exploration } = analysis();
        const reached = new Set([...graph.snapshots.values()].map(leafState));
        const unreachable = new Set([
          ...(hasCompactor ? [] : ['compacting', 'emergencyPruning']),
          // With a cap of 0 no compaction is allowed; only the emergency prune is left.
          ...(cap === 0 ? ['compacting', 'compactingNow'] : []),
          ...(configuration.input.mutators?.length ? [] : ['mutating']),
          ...(waits ? [] : approvalStates),
          ...(configuration.input.resume ? [] : ['resuming']),
          // Plan updates and compactions are offered in the idle before any run (see
          // outcomesFor); a loop that resumes a run has run one before its first idle.
          ...(configuration.input.resume ? ['recordingPlan', 'compactingNow'] : []),
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
            ? emergencyPruneBound(
                cap,
                configuration.input.maxStepsPerRun ?? Number.POSITIVE_INFINITY,
              )
            : 0,
        );
        expect(exploration.peaks.mutationsStarted).toBeGreaterThan(0);
        // Two calls wait at once, a tool step starts with both decisions recorded, and decisions
        // the loop must ignore (early, late, repeated, for an unknown call) arrive while it waits.
        expect(exploration.peaks.awaitedAtOnce).toBe(waits ? 2 : 0);
        expect(exploration.peaks.recordedBeforeTools).toBe(waits ? 2 : 0);
        expect(exploration.peaks.ignoredWhileWaiting > 0).toBe(waits);
      });

      it('never exceeds the compaction cap, never infers after an invalid mutation, pairs every MutationStarted with its MutationFinished (and RunStarted with RunFinished), runs no tool step before every awaited call has a recorded decision and mutates, compacts or infers nothing while calls wait, on every path', () => {
        const { graph, exploration } = analysis();
        expect(exploration.violations).toEqual([]);
        report.push(
          `${configuration.label}: ${graph.snapshots.size} reachable states, ${graph.edgeCount} transitions, ` +
            `${exploration.productStates} (state, invariant) pairs; at most ${exploration.peaks.sinceSuccess} ` +
            `consecutive compaction-state entries, ${exploration.peaks.sinceInference} between two inferences, ` +
            `${exploration.peaks.emergencySinceSuccess} emergency prunes between two successful inferences`,
        );
      });

      it('can return to idle from every reachable state, awaitingApproval and resuming included', () => {
        const { graph } = analysis();
        expect(statesThatCannotReachIdle({ graph })).toEqual([]);
      });

      it('on its own (no message, decision or abort) always returns to idle or stops in awaitingApproval, the only busy state that waits for outside input', () => {
        const { graph } = analysis();
        const waiting = statesWaitingForInput({ graph });
        expect([...new Set(waiting.map((state) => leafOf(graph, state)))]).toEqual(
          waits ? ['awaitingApproval'] : [],
        );
        const mayWait = (state: string) => isWaiting(graph, state);
        expect(checkProgress({ graph, mayWait })).toEqual({ deadStates: [], cycle: null });
      });

      it('a waiting run needs a decision or an abort: with a decision (either way) for every awaited call it always returns to idle, and an abort always ends it', () => {
        const { graph } = analysis();
        // Every wait takes both answers for each awaited call, and an abort.
        expect(undecidableWaits({ graph })).toEqual([]);
        const follows = (edge: LoopEdge) => isActorOutcome(edge) || decidesAwaitedCall(graph, edge);
        expect(checkProgress({ graph, follows })).toEqual({ deadStates: [], cycle: null });
        const waitingStates = [...graph.snapshots.keys()].filter((state) =>
          isWaiting(graph, state),
        );
        expect(waitingStates.length > 0).toBe(waits);
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
  }

  describe.each(simplePathConfigurations)('$label', (configuration) => {
    it('holds the invariants along every complete run (every simple path from a run start to idle)', () => {
      const graph = buildLoopGraph({ configuration });
      const runs = getSimplePaths(agentLoopMachine, completeRunOptions(configuration));
      expect(runs.length).toBeGreaterThan(1000);
      const violations = runs.flatMap((path) => checkPath({ graph, path }));
      expect(violations).toEqual([]);
      totals.pathsChecked += runs.length;
      report.push(`${configuration.label}: ${runs.length} complete runs (simple paths) checked`);
      // Tens of thousands of paths: 10-25 s on 2 idle cores, more under load; a harness limit,
      // not a speed claim.
    }, 120_000);
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
      edge: {
        from: 'mutating',
        outcome: invalid,
        to: 'inferring',
        observations: [{ kind: 'invoked', source: 'callModel' }],
      },
      next: inferring,
      cap: 1,
    });
    expect(violations).toEqual([
      'an invalid mutation led to inferring, not a failed finish',
      'inferring was entered after a mutation failed validation',
    ]);
  });

  describe('with tool approvals', () => {
    const approvals = loopConfiguration({ cap: 0, mutators: 'no mutators', approvals: true });
    const explore = (machine: typeof agentLoopMachine) =>
      exploreAllPaths({ graph: buildLoopGraph({ configuration: approvals, machine }) });

    it('reports a tool step that runs before every awaited call has a recorded decision', () => {
      const { violations } = explore(
        agentLoopMachine.provide({ guards: { allCallsDecided: () => true } }),
      );
      expect(
        violations.some((violation) =>
          violation.startsWith('tools ran while call_1 had no recorded decision'),
        ),
      ).toBe(true);
    });

    it('reports a decision the loop takes for a call it does not wait for', () => {
      const { violations } = explore(
        agentLoopMachine.provide({
          guards: { isAwaitedCall: ({ event }) => event.type === 'tool.approval' },
        }),
      );
      expect(
        violations.some((violation) =>
          violation.includes('a decision on call_9, which no call awaits, changed the loop'),
        ),
      ).toBe(true);
    });

    it('reports a wait that decisions for every awaited call cannot end', () => {
      const graph = buildLoopGraph({
        configuration: approvals,
        machine: agentLoopMachine.provide({ guards: { allCallsDecided: () => false } }),
      });
      const follows = (edge: LoopEdge) => isActorOutcome(edge) || decidesAwaitedCall(graph, edge);
      const { deadStates } = checkProgress({ graph, follows });
      expect(deadStates.length).toBeGreaterThan(0);
      expect(deadStates.every((state) => isWaiting(graph, state))).toBe(true);
    });

    it('reports a compaction, mutation or inference while calls wait', () => {
      const graph = buildLoopGraph({ configuration: approvals });
      // With cap 0 the emergency prune is the one compaction state.
      const pruning = [...graph.snapshots.values()].find(
        (snapshot) => leafState(snapshot) === 'emergencyPruning',
      );
      if (pruning === undefined) throw new Error('fixture missing');
      const { violations } = advanceMonitor({
        monitor: { ...initialMonitor, runOpen: true, awaited: ['call_1'] },
        edge: {
          from: 'awaitingApproval',
          outcome: abort,
          to: 'emergencyPruning',
          observations: [{ kind: 'invoked', source: 'emergencyPrune' }],
        },
        next: pruning,
        cap: 0,
      });
      expect(violations).toContain('emergencyPrune ran while call_1 waited for approval');
    });
  });
});
