/**
 * `npm run bench` (add `-- --quick` for a short run): every benchmark in one process, tables on
 * stdout and in docs/benchmarks.md (the whole-step section from bench/steps.bench.ts, run in child processes).
 *
 * The suites import the peer libraries installed in bench/node_modules (`npm ci --prefix
 * bench`), which the product's own type-check and CI never install; a computed specifier keeps
 * that check from following the import. `npx tsc -p bench` type-checks the suites themselves.
 */
const suite = new URL('./suite/main.ts', import.meta.url).href;
await import(suite);
