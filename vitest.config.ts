import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The slowest files, in the order they should start (durations of fresh-clone CI runs: 10 to 31
 * s each). Vitest starts the files it has timed before longest first, but a fresh clone (CI)
 * has no timings, so these would start wherever the glob puts them and the last of them would
 * run alone at the end. The two Restate files each start a cluster: one starts first, the other
 * after about a minute of other files, so the two clusters rarely run at once.
 */
const START_FIRST = [
  'test/package/fresh-checkout.test.ts',
  'test/restate/loop-object.test.ts',
  'test/model-based/replay.test.ts',
  'test/model-based/graph.test.ts',
  'test/package/installed-tarball.test.ts',
  'test/fuzz/loop-fuzz.test.ts',
  'test/runtime/crash-resume.test.ts',
  'test/cli/compact-files.test.ts',
  'test/faults/fault-matrix.test.ts',
  'test/restate/limits.test.ts',
];

/** Vitest's own order, with the files of START_FIRST moved to the front in that order. */
class StartFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const index = START_FIRST.findIndex((path) => spec.moduleId.endsWith(path));
      return index === -1 ? START_FIRST.length : index;
    };
    return (await super.sort(files)).sort((left, right) => rank(left) - rank(right));
  }
}

export default defineConfig({
  resolve: {
    // Docs examples import the package by name, as users do; tests run them against the source.
    alias: [
      { find: /^loopkeeper\/machines$/, replacement: source('./machines/agent-loop.machine.ts') },
      { find: /^loopkeeper\/([a-z-]+)$/, replacement: `${source('./src')}/$1/index.ts` },
      { find: /^loopkeeper$/, replacement: source('./src/index.ts') },
    ],
  },
  test: {
    sequence: { sequencer: StartFirstSequencer },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Both cores: vitest's default leaves one idle here, and the suite is mostly child
    // processes and I/O waits, which overlap well.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'core',
          include: ['test/**/*.test.ts'],
          exclude: ['test/restate/**'],
          // Test files share their worker's module cache instead of loading the library (and the
          // openai SDK under it) again for each file: that loading was a third of the suite's
          // time. Tests keep no state in modules they share; each builds its own loops, stores
          // and servers.
          isolate: false,
        },
      },
      {
        // A real restate-server and worker processes, started once per file on free ports, so a
        // file can run beside the others (START_FIRST keeps the two files apart in time).
        extends: true,
        test: {
          name: 'restate',
          include: ['test/restate/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
