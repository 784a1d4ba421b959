import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The suite again on another Node (see scripts/test-runtimes.sh): the fast tests only. The slow
 * end-to-end suites (the CLI as a child process, the fault matrix, the fuzz, the model-based
 * proofs, the multi-process lock race, the packed-tarball installs, the Restate cluster, the
 * PostgreSQL store against a real server) run
 * once, on the machine's Node, in `npm test`.
 *
 * With LOOPKEEPER_OPENAI_DIR set (a folder whose node_modules holds another openai major) the
 * tests that use the SDK import that one instead of the locked version.
 */
const openaiDirectory = process.env['LOOPKEEPER_OPENAI_DIR'];
const baseAliases = base.resolve?.alias;

export default defineConfig({
  resolve: {
    alias: [
      ...(openaiDirectory === undefined
        ? []
        : [
            {
              find: /^openai$/,
              replacement: fileURLToPath(
                new URL(`file://${openaiDirectory}/node_modules/openai/index.mjs`),
              ),
            },
          ]),
      ...(Array.isArray(baseAliases) ? baseAliases : []),
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [
      'test/cli/**',
      'test/faults/**',
      'test/fuzz/**',
      'test/model-based/**',
      'test/docs/**',
      // Packs the tarball and installs it with the machine's npm: once is enough.
      'test/package/**',
      // A real restate-server cluster with worker processes: once is enough.
      'test/restate/**',
      // A real PostgreSQL server per file: once is enough.
      'test/postgres/**',
      // Races real child processes, one as another user, who cannot run a Node kept under
      // root's npm cache.
      'test/log/session-lock-race.test.ts',
      '**/node_modules/**',
    ],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 2,
    // As in the main suite: files share their worker's module cache.
    isolate: false,
  },
});
