/**
 * Generates the API reference from the public entries in package.json "exports": for every
 * exported value, the doc comment above its declaration and the `@example` in it. Writes
 * docs/api.md and test/api-examples/<entry>.examples.ts, where `tsc` type-checks every example.
 * Run with `npm run docs:api`; test/docs/api-reference.test.ts fails when either is stale.
 *
 * TypeScript 7's native compiler has no compiler API, so declarations are found with regexes
 * over the sources: `export { … } from` lists and `export *` are followed to the file that
 * declares the name, and the doc comment is the one that ends right above the declaration.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
export const apiDocPath = 'docs/api.md';
export const examplesDirectory = 'test/api-examples';

/** One public entry: `loopkeeper` or `loopkeeper/<name>`, and the source file it maps to. */
export interface ApiEntry {
  /** The key in package.json "exports": `.` or `./compaction`. */
  readonly key: string;
  /** The specifier users import: `loopkeeper` or `loopkeeper/compaction`. */
  readonly specifier: string;
  /** The file stem of its examples: `root` or `compaction`. */
  readonly slug: string;
  /** The source module, relative to the repository root. */
  readonly source: string;
  /** The first paragraph of the entry module's top doc comment. */
  readonly purpose: string | undefined;
  readonly values: readonly ApiValue[];
  readonly types: readonly string[];
}

/** One exported runtime value and its documentation. */
export interface ApiValue {
  readonly name: string;
  /** The file that declares it, relative to the repository root; undefined when not found. */
  readonly declaredIn: string | undefined;
  /** The name at its declaration (differs when the entry renames it). */
  readonly declaredName: string;
  readonly comment: string | undefined;
  readonly summary: string | undefined;
  /** The code of the first ```ts block under `@example`. */
  readonly example: string | undefined;
  /** The value of a string constant, as written (`'gen_ai.usage.input_tokens'`). */
  readonly literal: string | undefined;
}

export interface ApiReference {
  readonly entries: readonly ApiEntry[];
  /** Generated file contents by repository-relative path. */
  readonly files: ReadonlyMap<string, string>;
}

const read = (path: string) => readFileSync(join(repositoryRoot, path), 'utf8');

/** The public entries of package.json, in its order, with their source modules. */
export function packageEntries(): {
  key: string;
  specifier: string;
  slug: string;
  source: string;
}[] {
  const manifest = JSON.parse(read('package.json')) as {
    name: string;
    exports: Record<string, { types: string }>;
  };
  return Object.entries(manifest.exports).map(([key, target]) => {
    const source = target.types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts');
    const subpath = key.replace(/^\.\/?/, '');
    return {
      key,
      specifier: subpath === '' ? manifest.name : `${manifest.name}/${subpath}`,
      slug: subpath === '' ? 'root' : subpath,
      source,
    };
  });
}

/** The source file a relative `.js` specifier in `from` refers to. */
function resolveModule(from: string, specifier: string): string {
  return join(dirname(from), specifier.replace(/\.js$/, '.ts'));
}

interface ExportEdge {
  /** The exported name. */
  readonly name: string;
  /** The name in the module it comes from. */
  readonly imported: string;
  readonly module: string;
}

/** Named re-exports (`export { a, b as c } from './x.js'`) and star re-exports of a module. */
function reExports(file: string): { named: ExportEdge[]; stars: string[] } {
  const source = read(file);
  const named: ExportEdge[] = [];
  for (const match of source.matchAll(/export\s+(type\s+)?\{([^}]*)\}\s*from\s*'([^']+)'/g)) {
    if (match[1] !== undefined) continue;
    const module = resolveModule(file, match[3] ?? '');
    for (const part of (match[2] ?? '').split(',')) {
      const entry = part.trim();
      if (entry === '' || entry.startsWith('type ')) continue;
      const [imported = entry, name = imported] = entry.split(/\s+as\s+/);
      named.push({ name, imported, module });
    }
  }
  const stars = [...source.matchAll(/export\s+\*\s+from\s*'([^']+)'/g)].map((match) =>
    resolveModule(file, match[1] ?? ''),
  );
  return { named, stars };
}

const escapeName = (name: string) => name.replace(/[$]/g, '\\$');

/** The doc comment that ends right above `index` in `source` (only line comments between). */
function commentAbove(source: string, index: number): string | undefined {
  // Only line comments may sit between the doc comment and the declaration; a blank line
  // means the comment above belongs to a group or to the file.
  const before = source.slice(0, index).replace(/(?:[ \t]*\/\/[^\n]*\n)*$/, '');
  const end = /\*\/[ \t]*\n$/.exec(before);
  if (end === null) return undefined;
  return docComment(before.slice(0, end.index + 2));
}

function docComment(before: string): string | undefined {
  const start = before.lastIndexOf('/**');
  if (start === -1) return undefined;
  const comment = before.slice(start);
  // A `*/` of an earlier comment inside means the block above is not a doc comment.
  if (comment.slice(0, -2).includes('*/')) return undefined;
  return comment;
}

/** Finds where `name` is declared, starting from `file`, following re-exports. */
function locate(
  file: string,
  name: string,
  seen = new Set<string>(),
): { file: string; name: string; comment: string | undefined; literal?: string } | undefined {
  const key = `${file}#${name}`;
  if (seen.has(key)) return undefined;
  seen.add(key);
  const source = read(file);
  const declaration = new RegExp(
    `^export\\s+(?:declare\\s+)?(?:default\\s+)?(?:async\\s+)?(?:abstract\\s+)?(?:function\\*?|const|let|var|class|enum)\\s+${escapeName(name)}\\b`,
    'm',
  ).exec(source);
  if (declaration !== null) {
    const comment = commentAbove(source, declaration.index);
    const literal = /^\s*=\s*('[^'\n]*');/.exec(
      source.slice(declaration.index + declaration[0].length),
    );
    return literal?.[1] === undefined
      ? { file, name, comment }
      : { file, name, comment, literal: literal[1] };
  }
  const { named, stars } = reExports(file);
  const edge = named.find((candidate) => candidate.name === name);
  if (edge !== undefined) return locate(edge.module, edge.imported, seen);
  // `const x = …; export { x };` in the same file.
  const local = new RegExp(
    `^(?:declare\\s+)?(?:async\\s+)?(?:function\\*?|const|let|var|class)\\s+${escapeName(name)}\\b`,
    'm',
  ).exec(source);
  if (local !== null && new RegExp(`export\\s*\\{[^}]*\\b${escapeName(name)}\\b`).test(source)) {
    return { file, name, comment: commentAbove(source, local.index) };
  }
  for (const star of stars) {
    const found = locate(star, name, seen);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The comment's text without the `/**`, `*` and `*\/` decoration. */
function commentText(comment: string): string {
  return comment
    .replace(/^\/\*\*/, '')
    .replace(/\*\/$/, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, ''))
    .join('\n')
    .trim();
}

/** The first sentence of a comment's prose (before any tag), on one line. */
function firstSentence(text: string): string | undefined {
  // The first paragraph; when it only introduces a block (a diagram, a list) with a colon, the
  // first prose paragraph after that block.
  const paragraphs = (text.split(/^@/m)[0] ?? '').trim().split(/\n\s*\n/);
  let paragraph = paragraphs[0] ?? '';
  if (paragraph.trim().endsWith(':')) {
    paragraph = paragraphs.slice(1).find((candidate) => /^[A-Za-z`]/.test(candidate)) ?? paragraph;
  }
  const prose = (paragraph.split(/\n\s*- /)[0] ?? '').trim().replace(/\s+/g, ' ');
  if (prose === '') return undefined;
  // A period that ends a sentence: followed by a space and a capital or backtick, or the end.
  const end = /[.!?](?=\s+[A-Z`(]|$)/.exec(prose);
  return end === null ? prose : prose.slice(0, end.index + 1);
}

/** The code of the first ```ts block after the `@example` tag. */
function exampleCode(text: string): string | undefined {
  const tag = text.indexOf('@example');
  if (tag === -1) return undefined;
  const block = /```(?:ts|typescript)\n([\s\S]*?)\n```/.exec(text.slice(tag));
  return block?.[1];
}

/** The top doc comment of an entry module: its first paragraph. */
function modulePurpose(file: string): string | undefined {
  const source = read(file).trimStart();
  if (!source.startsWith('/**')) return undefined;
  const text = commentText(source.slice(0, source.indexOf('*/') + 2));
  const paragraph = (text.split(/\n\s*\n/)[0] ?? '').replace(/\s+/g, ' ').trim();
  // "The `loopkeeper/log` entry: the session's …" reads as "The session's …" under its heading.
  return paragraph.replace(/^The `[^`]+` entry: (\w)/, (_, first: string) => first.toUpperCase());
}

/** The type-only names an entry exports, read from its export lists (for listing by name). */
function typeNames(file: string, values: ReadonlySet<string>): string[] {
  const names = new Set<string>();
  const visit = (module: string, seen: Set<string>) => {
    if (seen.has(module)) return;
    seen.add(module);
    const source = read(module);
    for (const match of source.matchAll(/export\s+(type\s+)?\{([^}]*)\}/g)) {
      for (const part of (match[2] ?? '').split(',')) {
        const entry = part.trim();
        if (entry === '') continue;
        const isType = match[1] !== undefined || entry.startsWith('type ');
        const name =
          entry
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)
            .pop() ?? '';
        if (isType && !values.has(name)) names.add(name);
      }
    }
    for (const match of source.matchAll(/^export\s+(?:interface|type)\s+([A-Za-z0-9_$]+)/gm)) {
      if (module !== file) names.add(match[1] ?? '');
    }
    for (const match of source.matchAll(/export\s+\*\s+from\s*'([^']+)'/g)) {
      visit(resolveModule(module, match[1] ?? ''), seen);
    }
    for (const match of source.matchAll(/export\s+type\s+\*\s+from\s*'([^']+)'/g)) {
      const target = read(resolveModule(module, match[1] ?? ''));
      for (const declared of target.matchAll(/^export\s+(?:interface|type)\s+([A-Za-z0-9_$]+)/gm)) {
        names.add(declared[1] ?? '');
      }
    }
  };
  visit(file, new Set());
  return [...names].filter((name) => !values.has(name)).sort();
}

/** Reads every entry's values and their docs. Imports each entry module to list its values. */
export async function readApi(): Promise<ApiEntry[]> {
  const entries: ApiEntry[] = [];
  for (const entry of packageEntries()) {
    const module = (await import(pathToFileURL(join(repositoryRoot, entry.source)).href)) as Record<
      string,
      unknown
    >;
    const names = Object.keys(module).sort((left, right) => left.localeCompare(right));
    const values = names.map((name): ApiValue => {
      const found = locate(entry.source, name);
      const text = found?.comment === undefined ? undefined : commentText(found.comment);
      return {
        name,
        declaredIn: found?.file,
        declaredName: found?.name ?? name,
        comment: text,
        summary: text === undefined ? undefined : firstSentence(text),
        example: text === undefined ? undefined : exampleCode(text),
        literal: found?.literal,
      };
    });
    entries.push({
      ...entry,
      purpose: modulePurpose(entry.source),
      values,
      types: typeNames(entry.source, new Set(names)),
    });
  }
  return entries;
}

interface ImportClause {
  readonly specifier: string;
  /** Local name → `type ` prefix or ''. */
  readonly names: Map<string, boolean>;
  namespace: string | undefined;
}

/** Splits an example into its import declarations and the rest of its code. */
export function splitImports(code: string): {
  imports: {
    specifier: string;
    names: { name: string; typeOnly: boolean }[];
    namespace?: string;
  }[];
  body: string;
} {
  const imports: {
    specifier: string;
    names: { name: string; typeOnly: boolean }[];
    namespace?: string;
  }[] = [];
  const body = code.replace(
    /^import\s+(type\s+)?(?:\{([^}]*)\}|\*\s+as\s+([A-Za-z0-9_$]+))\s+from\s+'([^']+)';?[ \t]*\n?/gm,
    (_, typeOnly: string | undefined, list: string | undefined, namespace, specifier: string) => {
      const names = (list ?? '')
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== '')
        .map((part) => ({
          name: part.replace(/^type\s+/, ''),
          typeOnly: typeOnly !== undefined || part.startsWith('type '),
        }));
      imports.push(
        namespace === undefined ? { specifier, names } : { specifier, names, namespace },
      );
      return '';
    },
  );
  return { imports, body: body.replace(/^\n+/, '') };
}

/** The examples file of one entry: imports merged at the top, each example in its function. */
function examplesFile(entry: ApiEntry, values: readonly ApiValue[]): string {
  const clauses = new Map<string, ImportClause>();
  const owner = new Map<string, string>();
  const functions: string[] = [];
  for (const value of values) {
    if (value.example === undefined) continue;
    const { imports, body } = splitImports(value.example);
    for (const clause of imports) {
      const merged = clauses.get(clause.specifier) ?? {
        specifier: clause.specifier,
        names: new Map<string, boolean>(),
        namespace: undefined,
      };
      clauses.set(clause.specifier, merged);
      for (const { name, typeOnly } of clause.names) {
        const local = name.split(/\s+as\s+/).pop() ?? name;
        const previous = owner.get(local);
        if (previous !== undefined && previous !== clause.specifier) {
          throw new Error(
            `${entry.slug}.examples.ts: ${local} is imported from both '${previous}' and '${clause.specifier}' (in the example of ${value.name}); import it from one entry in all examples of ${entry.specifier}`,
          );
        }
        owner.set(local, clause.specifier);
        merged.names.set(name, (merged.names.get(name) ?? true) && typeOnly);
      }
      if (clause.namespace !== undefined) merged.namespace = clause.namespace;
    }
    const indented = body
      .trimEnd()
      .split('\n')
      .map((line) => (line === '' ? '' : `  ${line}`))
      .join('\n');
    functions.push(
      `// ${value.name}: ${value.declaredIn ?? ''}\nexport async function example_${value.name}(): Promise<void> {\n${indented}\n}\n`,
    );
  }
  const importLines = [...clauses.values()]
    .sort((left, right) => left.specifier.localeCompare(right.specifier))
    .flatMap((clause) => {
      const lines: string[] = [];
      if (clause.namespace !== undefined) {
        lines.push(`import * as ${clause.namespace} from '${clause.specifier}';`);
      }
      if (clause.names.size > 0) {
        const names = [...clause.names.entries()]
          .sort(([left], [right]) => left.localeCompare(right))
          .map(([name, typeOnly]) => (typeOnly ? `type ${name}` : name));
        const line = `import { ${names.join(', ')} } from '${clause.specifier}';`;
        lines.push(
          line.length <= 100
            ? line
            : `import {\n${names.map((name) => `  ${name},`).join('\n')}\n} from '${clause.specifier}';`,
        );
      }
      return lines;
    });
  return [
    `// Generated by scripts/api-reference.ts from the @example blocks of ${entry.specifier}; do not edit.`,
    '// `npm run docs:api` regenerates it; `tsc` type-checks every example (they are not run).',
    '',
    ...importLines,
    '',
    functions.join('\n'),
  ].join('\n');
}

/**
 * docs/api.md: one section per entry, each value with its first sentence and its `@example`
 * (marked `<!-- api-example: <entry> <name> -->`, so the docs check knows it is the one
 * `tsc` type-checks in test/api-examples). A value an earlier entry already showed (the
 * same declaration, re-exported) is listed with its sentence and a pointer to that example.
 */
function apiDocument(entries: readonly ApiEntry[]): string {
  const lines = [
    '# API reference',
    '',
    '<!-- Generated by scripts/api-reference.ts from the doc comments; `npm run docs:api` updates it. -->',
    '',
    'loopkeeper has one root entry and a subpath entry per area. The root holds what a host',
    'needs to embed the loop; each area entry holds its whole area, the names the root',
    're-exports included (same bindings). Every value below has a doc comment with an',
    '`@example`, shown under it; the examples are type-checked in `test/api-examples/`. Start',
    'with [getting-started.md](getting-started.md) for a first run.',
    '',
    '| Entry | Source | Values |',
    '| --- | --- | --- |',
    ...entries.map(
      (entry) =>
        `| [\`${entry.specifier}\`](#${anchor(entry.specifier)}) | \`${entry.source}\` | ${entry.values.length} |`,
    ),
    '',
  ];
  const shownIn = new Map<string, string>();
  for (const entry of entries) {
    lines.push(`## ${entry.specifier}`, '');
    if (entry.purpose !== undefined) lines.push(entry.purpose, '');
    lines.push(`Source: \`${entry.source}\`.`, '');
    for (const value of entry.values) {
      const key = `${value.declaredIn}#${value.declaredName}`;
      const literal = value.literal === undefined ? '' : ` = \`${value.literal}\``;
      const summary = value.summary ?? '(undocumented)';
      const earlier = shownIn.get(key);
      if (earlier !== undefined) {
        lines.push(
          `- \`${value.name}\`${literal} (also in \`${earlier}\`, example there): ${summary}`,
          '',
        );
        continue;
      }
      shownIn.set(key, entry.specifier);
      lines.push(`### \`${value.name}\`${literal}`, '', summary, '');
      if (value.example !== undefined) {
        lines.push(
          `<!-- api-example: ${entry.specifier} ${value.name} -->`,
          '```ts',
          value.example,
          '```',
          '',
        );
      }
    }
    if (entry.types.length > 0) {
      lines.push(`Types: ${entry.types.map((name) => `\`${name}\``).join(', ')}.`, '');
    }
  }
  return lines.join('\n');
}

const anchor = (heading: string) => heading.toLowerCase().replace(/[^a-z0-9 -]/g, '');

/**
 * Builds every generated file in memory. An example goes into the file of the first entry
 * (in package.json order) that exports its declaration, so each is checked once.
 */
export async function buildApiReference(): Promise<ApiReference> {
  const entries = await readApi();
  const files = new Map<string, string>();
  const placed = new Set<string>();
  for (const entry of entries) {
    const own = entry.values.filter((value) => {
      const key = `${value.declaredIn}#${value.declaredName}`;
      if (placed.has(key)) return false;
      placed.add(key);
      return true;
    });
    files.set(join(examplesDirectory, `${entry.slug}.examples.ts`), examplesFile(entry, own));
  }
  files.set(apiDocPath, apiDocument(entries));
  return { entries, files };
}

/** Writes the generated files; returns the paths that changed. */
export async function writeApiReference(): Promise<string[]> {
  const { files } = await buildApiReference();
  const changed: string[] = [];
  await mkdir(join(repositoryRoot, examplesDirectory), { recursive: true });
  for (const [path, content] of files) {
    const target = join(repositoryRoot, path);
    let before: string | undefined;
    try {
      before = readFileSync(target, 'utf8');
    } catch {
      before = undefined;
    }
    if (before !== content) {
      writeFileSync(target, content);
      changed.push(relative(repositoryRoot, target));
    }
  }
  return changed;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const changed = await writeApiReference();
  for (const path of changed) console.log(`updated ${path}`);
  const { entries } = await buildApiReference();
  const seen = new Set<string>();
  const missing = entries.flatMap((entry) =>
    entry.values
      .filter((value) => value.example === undefined)
      .filter((value) => !seen.has(value.name) && seen.add(value.name) !== undefined)
      .map((value) => `${entry.specifier} ${value.name}`),
  );
  if (missing.length > 0) {
    console.log(`${missing.length} values have no @example:\n${missing.join('\n')}`);
  }
}
