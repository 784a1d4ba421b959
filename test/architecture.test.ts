import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

function sourceFiles(directory: string): string[] {
  return readdirSync(join(root, directory), { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `src/<area>` for a file under src (`src` itself for the root entry), `machines` for the machine. */
function folderOf(file: string): string {
  const parts = file.split('/');
  return parts[0] === 'src' && parts.length > 2 ? `src/${parts[1]}` : (parts[0] ?? file);
}

/**
 * Relative imports that load a module at run time. `import type` and `export type` are erased;
 * with `verbatimModuleSyntax` an `import { type A }` still loads its module, so it counts.
 */
function valueImports(file: string): string[] {
  const source = readFileSync(join(root, file), 'utf8');
  const pattern = /^(?:import|export)\s+(?!type\s)[^;]*?\sfrom\s+'(\.[^']+)';/gms;
  return [...source.matchAll(pattern)].map(([, target]) =>
    normalize(join(dirname(file), target ?? '')).replace(/\.js$/, '.ts'),
  );
}

/** Relative imports of every kind, `import type` and `export type` included. */
function allImports(file: string): string[] {
  const source = readFileSync(join(root, file), 'utf8');
  const pattern = /^(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)';/gms;
  return [...source.matchAll(pattern)].map(([, target]) =>
    normalize(join(dirname(file), target ?? '')).replace(/\.js$/, '.ts'),
  );
}

/**
 * The imports of files under `folder` that reach a file outside it and outside `allowed`, as
 * `from → to`. Reads every import by default, or only value imports.
 */
function outsideImports(
  candidates: readonly string[],
  folder: string,
  allowed: readonly string[],
  read: (file: string) => string[] = allImports,
): string[] {
  const inside = (file: string, root: string) => file.startsWith(`${root}/`);
  return candidates
    .filter((file) => inside(file, folder))
    .flatMap((file) => read(file).map((target) => `${file} → ${target}`))
    .filter((edge) => {
      const target = edge.split(' → ')[1] ?? '';
      return !inside(target, folder) && !allowed.some((root) => inside(target, root));
    });
}

type Graph = Map<string, Map<string, string[]>>;

/** The folder-level graph of value imports: folder → folder → the file edges behind it. */
function folderGraph(files: readonly string[]): Graph {
  const graph: Graph = new Map();
  for (const file of files) {
    for (const target of valueImports(file)) {
      const from = folderOf(file);
      const to = folderOf(target);
      if (from === to) continue;
      const edges = graph.get(from) ?? new Map<string, string[]>();
      graph.set(from, edges);
      edges.set(to, [...(edges.get(to) ?? []), `${file} → ${target}`]);
    }
  }
  return graph;
}

/** Strongly connected components with more than one folder (Tarjan), i.e. the cycles. */
function cyclesOf(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    for (const target of graph.get(node)?.keys() ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(target) ?? 0));
      } else if (stack.includes(target)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member !== undefined) component.push(member);
      } while (member !== undefined && member !== node);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  const nodes = new Set([
    ...graph.keys(),
    ...[...graph.values()].flatMap((edges) => [...edges.keys()]),
  ]);
  for (const node of [...nodes].sort()) if (!index.has(node)) visit(node);
  return cycles;
}

const files = [...sourceFiles('src'), ...sourceFiles('machines')];

describe('the shape of src and machines', () => {
  it('has no value import cycle between folders', () => {
    const graph = folderGraph(files);
    const cycles = cyclesOf(graph).map((cycle) =>
      cycle.flatMap((from) =>
        [...(graph.get(from) ?? [])]
          .filter(([to]) => cycle.includes(to))
          .map(
            ([to, edges]) =>
              `${from} → ${to} (${edges[0]}${edges.length > 1 ? `, +${edges.length - 1}` : ''})`,
          ),
      ),
    );
    expect(cycles).toEqual([]);
  });

  it('finds a cycle when there is one (the check itself can fail)', () => {
    const graph: Graph = new Map([
      ['src/a', new Map([['src/b', ['a.ts → b.ts']]])],
      ['src/b', new Map([['src/c', ['b.ts → c.ts']]])],
      ['src/c', new Map([['src/a', ['c.ts → a.ts']]])],
      ['src/d', new Map([['src/a', ['d.ts → a.ts']]])],
    ]);
    expect(cyclesOf(graph)).toEqual([['src/a', 'src/b', 'src/c']]);
  });

  it('reads the real import lines, type-only imports aside', () => {
    const graph = folderGraph(files);
    // The runtime loads the compaction area (the compactor, helpers), never the other way round.
    expect(graph.get('src/runtime')?.has('src/compaction')).toBe(true);
    expect(graph.get('src/compaction')?.has('src/runtime') ?? false).toBe(false);
  });

  it('keeps src/vocabulary at the bottom: it imports nothing else from the repository, types included', () => {
    expect(outsideImports(files, 'src/vocabulary', [])).toEqual([]);
  });

  it('lets machines/ load values from src/vocabulary only', () => {
    expect(outsideImports(files, 'machines', ['src/vocabulary'], valueImports)).toEqual([]);
  });

  it('finds an import that leaves the allowed folders (the check itself can fail)', () => {
    // The machine's type imports from src/ are allowed (erased), but counted with every import.
    expect(outsideImports(files, 'machines', ['src/vocabulary'])).not.toEqual([]);
    expect(
      outsideImports(['src/runtime/turn-record.ts'], 'src/runtime', [
        'src/model',
        'src/transcript',
      ]),
    ).toEqual(['src/runtime/turn-record.ts → src/vocabulary/index.ts']);
  });

  it('passes the loop to what needs it explicitly: no ambient store, no private XState field', () => {
    const ambient = files.filter((file) =>
      /AsyncLocalStorage|node:async_hooks|_actorScope/.test(readFileSync(join(root, file), 'utf8')),
    );
    expect(ambient.map((file) => relative(root, join(root, file)))).toEqual([]);
  });

  it('returns the session beside the actor, never patched onto it', () => {
    const patched = files.filter((file) =>
      /Object\.assign\(\s*(?:actor|loop|child|createActor\()/.test(
        readFileSync(join(root, file), 'utf8'),
      ),
    );
    expect(patched).toEqual([]);
  });

  it('reads compaction metadata through types, never by casting it', () => {
    // `result.metadata as …` or `metadata['budget'] as …`: a typed outcome is read instead.
    const cast = /\bmetadata(?:\[[^\]]+\]|\.\w+)?\s+as\s/;
    expect(cast.test("const { steps } = result.metadata as { steps: [] };")).toBe(true);
    expect(cast.test("const budget = outcome.metadata['budget'] as CompactionBudget;")).toBe(true);
    const casting = files.filter((file) => cast.test(readFileSync(join(root, file), 'utf8')));
    expect(casting).toEqual([]);
  });
});
