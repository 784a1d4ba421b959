import { agentLoopMachine } from 'loopkeeper';
import { afterAll, describe, expect, it } from 'vitest';
import { getShortestPaths, getSimplePaths } from 'xstate/graph';
import {
  loopConfiguration,
  replayConfigurations,
  simplePathConfigurations,
} from './support/loop-configurations.js';
import type { LoopConfiguration } from './support/loop-graph.js';
import {
  buildLoopGraph,
  completeRunOptions,
  serializeLoopState,
  traversalOptions,
} from './support/loop-graph.js';
import type { LoopEvent } from './support/loop-outcomes.js';
import { serializeLoopEvent } from './support/loop-outcomes.js';
import type { LoopPath } from './support/path-check.js';
import { replayPath } from './support/replay.js';

const report: string[] = [];
const totals = { shortestPaths: 0, completeRuns: 0, actorRuns: 0 };

afterAll(() => {
  console.log(
    [
      'agentLoopMachine replayed on the real actor',
      ...report,
      `total: ${totals.shortestPaths} shortest paths and ${totals.completeRuns} complete runs ` +
        `replayed in ${totals.actorRuns} runs of the real actor, state checked after every step`,
    ].join('\n'),
  );
});

/**
 * Shortest paths that are not the beginning of another one. Replay checks the state after every
 * step, so replaying these checks every shortest path, with one actor per branch of the tree.
 */
function maximalPaths(paths: readonly LoopPath[]): LoopPath[] {
  const keyOf = (path: LoopPath, length: number) =>
    path.steps
      .slice(1, length + 1)
      .map(
        (step) =>
          `${serializeLoopEvent(step.event as LoopEvent)}>${serializeLoopState(step.state)}`,
      )
      .join('|');
  const prefixes = new Set<string>();
  for (const path of paths) {
    for (let length = 0; length < path.steps.length - 1; length++) {
      prefixes.add(keyOf(path, length));
    }
  }
  return paths.filter((path) => !prefixes.has(keyOf(path, path.steps.length - 1)));
}

/** Every `stride`-th path, so the sample is spread over the list and the same on every run. */
function everyNth<T>(items: readonly T[], stride: number): T[] {
  return items.filter((_, index) => index % stride === 0);
}

async function replayAll(
  configuration: LoopConfiguration,
  paths: readonly LoopPath[],
): Promise<string[]> {
  const graph = buildLoopGraph({ configuration });
  const disagreements: string[] = [];
  for (const path of paths) {
    const disagreement = await replayPath({ configuration, graph, path });
    if (disagreement !== null) disagreements.push(disagreement);
  }
  totals.actorRuns += paths.length;
  return disagreements;
}

describe('agentLoopMachine replayed on the real actor with controllable actors', () => {
  // Titled by plain describe: describe.each cuts a '$label' off at 40 characters.
  for (const configuration of replayConfigurations) {
    describe(configuration.label, () => {
      it('agrees with the graph on state, running actors and telemetry along every shortest path', async () => {
        const paths = getShortestPaths(agentLoopMachine, traversalOptions(configuration));
        const branches = maximalPaths(paths);
        expect(await replayAll(configuration, branches)).toEqual([]);
        totals.shortestPaths += paths.length;
        report.push(
          `${configuration.label}: ${paths.length} shortest paths, replayed as ${branches.length} actor runs`,
        );
      });
    });
  }

  describe.each(simplePathConfigurations)('$label', (configuration) => {
    it('agrees with the graph along a deterministic sample of complete runs', async () => {
      const runs = getSimplePaths(agentLoopMachine, completeRunOptions(configuration));
      const sample = everyNth(runs, 4);
      expect(sample.length).toBeGreaterThan(250);
      expect(await replayAll(configuration, sample)).toEqual([]);
      totals.completeRuns += sample.length;
      report.push(
        `${configuration.label}: ${sample.length} of ${runs.length} complete runs replayed`,
      );
      // Hundreds of real actors: 10-25 s on 2 idle cores, more under load; a harness limit.
    }, 120_000);
  });
});

describe('the replay catches running code that differs from the graph', () => {
  it('reports the first step where an actor without the compaction cap leaves the graph', async () => {
    const configuration = loopConfiguration({ cap: 1 });
    const graph = buildLoopGraph({ configuration });
    const uncapped = agentLoopMachine.provide({
      guards: { canCompact: ({ context }) => context.compactor !== null },
    });
    const paths = maximalPaths(getShortestPaths(agentLoopMachine, traversalOptions(configuration)));
    const disagreements: string[] = [];
    for (const path of paths) {
      const disagreement = await replayPath({ configuration, graph, path, machine: uncapped });
      if (disagreement !== null) disagreements.push(disagreement);
    }
    expect(disagreements.length).toBeGreaterThan(0);
    expect(disagreements.every((disagreement) => disagreement.startsWith('state after'))).toBe(
      true,
    );
    expect(
      disagreements.some((disagreement) => disagreement.includes('"state":"compacting"')),
    ).toBe(true);
  });
});
