import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../scripts/api-reference.js';

// The commands README.md and docs/*.md tell a reader to type must work on a fresh clone after
// `npm ci`: the npm scripts exist, and a bench file run directly needs only the packages the
// repository's own install brings (bench/ has its own, which a script must install first).
const pages = [
  'README.md',
  ...readdirSync(join(repositoryRoot, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => join('docs', file)),
];
const text = (path: string) => readFileSync(join(repositoryRoot, path), 'utf8');
const manifest = JSON.parse(text('package.json')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const installed = new Set([
  ...Object.keys(manifest.dependencies),
  ...Object.keys(manifest.devDependencies),
]);

/** Packages a module needs at run time, following its relative imports (type-only ones left out). */
function runtimePackages(file: string, seen = new Set<string>()): Set<string> {
  const found = new Set<string>();
  if (seen.has(file) || statSync(file, { throwIfNoEntry: false })?.isFile() !== true) return found;
  seen.add(file);
  const source = readFileSync(file, 'utf8');
  const specifiers = [
    ...[...source.matchAll(/^import\s+(?!type\b)[^;]*?from\s*'([^']+)'/gm)].map((m) => m[1]),
    ...[...source.matchAll(/import\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]),
    ...[...source.matchAll(/new URL\(\s*'(\.[^']+)'\s*,\s*import\.meta\.url\s*\)/g)].map(
      (m) => m[1],
    ),
  ];
  for (const specifier of specifiers) {
    if (specifier === undefined || specifier.startsWith('node:')) continue;
    if (specifier.startsWith('.')) {
      const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
      for (const nested of runtimePackages(target, seen)) found.add(nested);
    } else {
      const parts = specifier.split('/');
      found.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? ''));
    }
  }
  return found;
}

const npmRuns = pages.flatMap((page) =>
  [...text(page).matchAll(/`npm run ([\w:-]+)/g)].map((match) => [page, match[1] ?? ''] as const),
);
const benchRuns = pages.flatMap((page) =>
  [...text(page).matchAll(/npx tsx (bench\/[\w./-]+\.ts)/g)].map(
    (match) => [page, match[1] ?? ''] as const,
  ),
);

describe('commands in README.md and docs/*.md', () => {
  it('finds them', () => {
    expect(npmRuns.length).toBeGreaterThan(3);
  });

  it.each(npmRuns)('%s: `npm run %s` is a script of package.json', (_, script) => {
    expect(Object.keys(manifest.scripts)).toContain(script);
  });

  it.each(benchRuns)('%s: `npx tsx %s` needs no package that only bench/ installs', (_, file) => {
    const missing = [...runtimePackages(join(repositoryRoot, file))].filter(
      (name) => !installed.has(name) && name !== 'loopkeeper',
    );
    expect(missing, 'give it an npm script that runs `npm ci --prefix bench` first').toEqual([]);
  });

  it('has every script that runs a bench file needing bench/ packages install them first', () => {
    for (const [name, command] of Object.entries(manifest.scripts)) {
      for (const match of command.matchAll(/tsx (bench\/[\w./-]+\.ts)/g)) {
        const needs = [...runtimePackages(join(repositoryRoot, match[1] ?? ''))].some(
          (name) => !installed.has(name),
        );
        if (needs) expect(command, name).toMatch(/npm ci --prefix bench .*&& .*tsx bench\//);
      }
    }
  });

  // Until loopkeeper is on the registry, `npm install loopkeeper` answers E404: a shell block
  // may show it only as the line for later, saying so.
  it.each(pages)('%s: installs loopkeeper the way that works while it is unpublished', (page) => {
    const lines = text(page).split('\n');
    let inShell = false;
    for (const [index, line] of lines.entries()) {
      if (/^```/.test(line)) inShell = !inShell && line === '```sh';
      if (!inShell || !/npm install\s(?:\S+\s)*loopkeeper(?:@\S*)?(?:\s|$)/.test(line)) continue;
      const context = lines.slice(Math.max(0, index - 4), index + 1).join('\n');
      expect(context, `${page}:${index + 1}`).toMatch(/published/);
    }
  });

  it('runs docs/distributed.md as written on one machine', () => {
    const page = text('docs/distributed.md');
    // A base directory an ordinary user can create, a deployment URI that resolves here.
    for (const match of page.matchAll(/RESTATE_BASE_DIR=(\S+)/g)) {
      expect(match[1]).not.toMatch(/^\/(?:var|opt|etc|usr)\b/);
    }
    const uris = [...page.matchAll(/"uri":\s*"([^"]+)"/g)].map((match) => match[1] ?? '');
    expect(uris.length).toBeGreaterThan(0);
    for (const uri of uris) expect(new URL(uri).hostname).toMatch(/^(?:127\.0\.0\.1|localhost)$/);
    // Restate's ingress port and the inspector relay's: the page says how they get along.
    expect(page).toMatch(/RESTATE_INGRESS__BIND_PORT=8080/);
    expect(page).toMatch(/inspector relay/);
    expect(page).toMatch(/--inspect-port/);
  });
});

// "The seed" and "agentkit" are the names of the designs loopkeeper started from; a newcomer
// cannot decode them. Only architecture.md's design-lineage section, which says what they
// are, uses them.
describe('user-facing docs', () => {
  const jargon = /\bthe seeds?\b|\bseed's\b|\bagentkit\b/i;

  it.each(pages)('%s speaks without the design-lineage jargon', (page) => {
    let body = text(page);
    if (page === join('docs', 'architecture.md')) {
      const start = body.indexOf('## Design lineage');
      expect(start).toBeGreaterThan(-1);
      const end = body.indexOf('\n## ', start + 1);
      expect(body.slice(start, end)).toMatch(/called "the seeds" here/);
      body = body.slice(0, start) + body.slice(end);
    }
    const lines = body.split('\n').filter((line) => jargon.test(line));
    expect(lines).toEqual([]);
  });
});

describe('docs/compaction.md', () => {
  it('lists exactly the names that only loopkeeper/compaction exports, not the root', async () => {
    const root = await import('../../src/index.js');
    const compaction = await import('../../src/compaction/index.js');
    const only = Object.keys(compaction)
      .filter((name) => !(name in root))
      .sort();
    const page = text(join('docs', 'compaction.md'));
    const marker = page.indexOf('<!-- compaction-only -->\n');
    expect(marker).toBeGreaterThan(-1);
    const line = page.slice(marker).split('\n')[1] ?? '';
    const listed = [...line.matchAll(/`([A-Za-z_]+)`/g)].map((match) => match[1]).sort();
    expect(listed).toEqual(only);
    expect(page).not.toMatch(/exported from `loopkeeper` \(and from `src\//);
    expect(page).not.toMatch(/`src\/[\w/-]+\/index\.ts`/);
  });
});
