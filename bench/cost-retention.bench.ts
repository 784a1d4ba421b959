/**
 * Section 6 of the benchmarks alone (cost against retention), in seconds rather than the full
 * run's minutes: `npx tsx bench/cost-retention.bench.ts` prints the table and its notes.
 * `--write` also puts them in place of section 6 of docs/benchmarks.md and rewrites
 * docs/benchmarks-cost-retention.svg; its figures are token counts, not timings, so they do not
 * depend on what else ran in the process.
 *
 * The suite imports the peers installed in bench/node_modules (`npm ci --prefix bench`); a
 * computed specifier keeps the product's type-check from following it, as in bench/run.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createTokenCounter } from '../src/tokens/create-token-counter.js';
import type { TokenCounter } from '../src/tokens/types.js';

interface Section {
  readonly title: string;
  readonly intro: string;
  readonly body: string;
  readonly notes?: readonly string[];
}

interface Suite {
  costRetentionBench(options: {
    counter: TokenCounter;
  }): Promise<{ section: Section; svg: string }>;
}

interface Markdown {
  renderSection(section: Section): string;
}

const suite: Suite = await import(new URL('./suite/cost-retention.ts', import.meta.url).href);
const markdown: Markdown = await import(new URL('./suite/markdown.ts', import.meta.url).href);
const { section, svg } = await suite.costRetentionBench({ counter: await createTokenCounter() });
const rendered = markdown.renderSection(section);
console.log(rendered);

if (process.argv.includes('--write')) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const path = `${root}docs/benchmarks.md`;
  const document = readFileSync(path, 'utf8');
  const start = document.indexOf(`## ${section.title}`);
  const end = document.indexOf('\n## ', start + 1);
  if (start < 0 || end < 0) throw new Error(`bench: no "${section.title}" section in ${path}`);
  writeFileSync(path, `${document.slice(0, start)}${rendered}\n${document.slice(end)}`);
  writeFileSync(`${root}docs/benchmarks-cost-retention.svg`, svg);
  console.log('Wrote section 6 of docs/benchmarks.md and docs/benchmarks-cost-retention.svg.');
}
