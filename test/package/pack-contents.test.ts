import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RECORDINGS_DIRECTORY } from '../../src/cli/demo/load-recordings.js';
import { ensureCliBuilt, packageRoot } from '../cli/support/cli-process.js';
import { npmPack } from './support/npm-pack.js';

/** Relative link targets of a markdown text, without anchors; web and mail links are left out. */
function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => (match[1] ?? '').split('#')[0] ?? '')
    .filter((target) => target !== '' && !/^[a-z]+:/i.test(target));
}

describe('npm pack', () => {
  let shipped: Set<string>;

  beforeAll(async () => {
    await ensureCliBuilt();
    const result = await npmPack({ dryRun: true });
    shipped = new Set(result.files.map((file) => file.path));
  }, 120_000);

  it('ships the licence, the readme, the command and the compiled entry points', () => {
    for (const path of [
      'LICENSE',
      'README.md',
      'package.json',
      'bin/loopkeeper.js',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/src/testing/index.js',
      'dist/src/cli/main.js',
      'dist/machines/agent-loop.machine.js',
    ]) {
      expect(shipped, path).toContain(path);
    }
  });

  it('ships none of the third-party transcripts, as their notice asks; the demo makes its own', async () => {
    const names = await readdir(join(packageRoot, RECORDINGS_DIRECTORY));
    expect(names.filter((name) => name.endsWith('.json')).length).toBeGreaterThanOrEqual(5);
    for (const name of names) expect(shipped).not.toContain(join(RECORDINGS_DIRECTORY, name));
    const notice = await readFile(join(packageRoot, RECORDINGS_DIRECTORY, 'README.md'), 'utf8');
    expect(notice).toContain("Do not copy them into the project's published package");
    expect(shipped).toContain('dist/src/cli/demo/synthetic-recordings.js');
  });

  it('ships no source map whose sources are missing from the package', async () => {
    const maps = [...shipped].filter((path) => path.endsWith('.map'));
    for (const map of maps) {
      const { sources } = JSON.parse(await readFile(join(packageRoot, map), 'utf8')) as {
        sources: string[];
      };
      for (const source of sources) {
        expect(shipped, `${map} -> ${source}`).toContain(normalize(join(dirname(map), source)));
      }
    }
  });

  it('ships every file a shipped markdown page links to', async () => {
    const pages = [...shipped].filter((path) => path.endsWith('.md'));
    expect(pages).toContain('docs/cli.md');
    for (const page of pages) {
      const text = await readFile(join(packageRoot, page), 'utf8');
      for (const target of relativeLinks(text)) {
        const path = normalize(join(dirname(page), target)).replace(/\/$/, '');
        const isShippedFolder = [...shipped].some((file) => file.startsWith(`${path}/`));
        expect(shipped.has(path) || isShippedFolder, `${page} links to ${target}`).toBe(true);
      }
    }
  });

  // TypeScript's `moduleResolution: node10` (the old `node`) ignores "exports": it finds the
  // root's types through "types" and a subpath's through "typesVersions".
  it('gives moduleResolution node10 the same types as "exports", for every entry', async () => {
    const manifest = JSON.parse(await readFile(join(packageRoot, 'package.json'), 'utf8')) as {
      exports: Record<string, { types: string }>;
      types?: string;
      typesVersions?: Record<string, Record<string, string[]>>;
    };
    const strip = (path: string) => path.replace(/^\.\//, '');
    expect(strip(manifest.types ?? '')).toBe(strip(manifest.exports['.']?.types ?? '-'));
    const mapped = manifest.typesVersions?.['*'] ?? {};
    for (const [key, target] of Object.entries(manifest.exports)) {
      if (key === '.') continue;
      expect(mapped[key.slice(2)], key).toEqual([strip(target.types)]);
      expect(shipped, target.types).toContain(strip(target.types));
    }
    expect(Object.keys(mapped).length).toBe(Object.keys(manifest.exports).length - 1);
  });

  it('keeps the AI SDK an optional peer that only the compiled loopkeeper/ai-sdk entry imports', async () => {
    const manifest = JSON.parse(await readFile(join(packageRoot, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    for (const peer of ['ai', '@ai-sdk/provider']) {
      expect(manifest.dependencies, peer).not.toHaveProperty(peer);
      expect(manifest.peerDependencies, peer).toHaveProperty(peer);
      expect(manifest.peerDependenciesMeta[peer]?.optional, peer).toBe(true);
    }
    expect(shipped).toContain('dist/src/ai-sdk/index.js');
    const importers: string[] = [];
    for (const path of [...shipped].filter((file) => file.endsWith('.js'))) {
      const code = await readFile(join(packageRoot, path), 'utf8');
      if (/(?:\bfrom|^\s*import)\s*\(?\s*['"](?:ai|ai\/[^'"]*|@ai-sdk\/[^'"]+)['"]/m.test(code)) {
        importers.push(path);
      }
    }
    expect(importers.filter((path) => !path.startsWith('dist/src/ai-sdk/'))).toEqual([]);
  });

  it('keeps LangChain an optional peer that only the compiled loopkeeper/langchain entry imports', async () => {
    const manifest = JSON.parse(await readFile(join(packageRoot, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    for (const peer of ['langchain', '@langchain/core']) {
      expect(manifest.dependencies, peer).not.toHaveProperty(peer);
      expect(manifest.peerDependencies, peer).toHaveProperty(peer);
      expect(manifest.peerDependenciesMeta[peer]?.optional, peer).toBe(true);
    }
    expect(shipped).toContain('dist/src/langchain/index.js');
    const importers: string[] = [];
    for (const path of [...shipped].filter((file) => file.endsWith('.js'))) {
      const code = await readFile(join(packageRoot, path), 'utf8');
      if (
        /(?:\bfrom|^\s*import)\s*\(?\s*['"](?:langchain|langchain\/[^'"]*|@langchain\/[^'"]+)['"]/m.test(
          code,
        )
      ) {
        importers.push(path);
      }
    }
    expect(importers.filter((path) => !path.startsWith('dist/src/langchain/'))).toEqual([]);
  });

  it('keeps @statelyai/inspect out of the dependencies: an optional peer only the inspector loads', async () => {
    const manifest = JSON.parse(await readFile(join(packageRoot, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    expect(manifest.dependencies).not.toHaveProperty('@statelyai/inspect');
    expect(manifest.peerDependencies).toHaveProperty('@statelyai/inspect');
    expect(manifest.peerDependenciesMeta['@statelyai/inspect']?.optional).toBe(true);
    // No compiled module imports it statically; the relay loader imports it with import().
    const importers: string[] = [];
    for (const path of [...shipped].filter((file) => file.endsWith('.js'))) {
      const code = await readFile(join(packageRoot, path), 'utf8');
      expect(code, path).not.toMatch(/(?:\bfrom|^\s*import)\s*['"]@statelyai\/inspect/m);
      if (/['"]@statelyai\/inspect(?:\/server)?['"]/.test(code)) importers.push(path);
    }
    expect(importers).toEqual(['dist/src/cli/load-inspector.js']);
  });
});
