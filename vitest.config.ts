import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

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
        // A real restate-server and worker processes: one file at a time, started once per file.
        extends: true,
        test: {
          name: 'restate',
          include: ['test/restate/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
