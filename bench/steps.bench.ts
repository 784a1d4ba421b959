/**
 * `npm run bench:steps` (`-- --rotations 3`, `-- --shape long`, `-- --only loopkeeper,ai-sdk`,
 * `-- --out file.md`): the whole-step benchmark of docs/benchmarks.md, every framework in a
 * process of its own. The peers live in bench/node_modules (`npm ci --prefix bench`); a computed
 * specifier keeps the product's type-check from following their imports.
 */
const suite = new URL('./suite/steps/main.ts', import.meta.url).href;
await import(suite);
