import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApiReference, repositoryRoot, splitImports } from '../../scripts/api-reference.js';

// Every code block a user reads in README.md and docs/*.md is either code that `tsc` checks
// (a copy of a docs/examples file, or in docs/api.md a value's @example that
// test/api-examples type-checks) or says what else it is: a shell session, program output or
// a diagram. An unmarked block could be any of these, and nothing would check it.
const markdownFiles = [
  'README.md',
  ...readdirSync(join(repositoryRoot, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => join('docs', file)),
];

/** Languages of blocks that are not compiled, and what they hold. */
const UNCOMPILED: Readonly<Record<string, string>> = {
  sh: 'a shell session',
  text: 'program output or a diagram in text',
  mermaid: 'a diagram',
};
const COMPILED = ['ts'];

interface Block {
  readonly where: string;
  readonly language: string;
  readonly code: string;
  /** The comment line right above the opening fence, if any. */
  readonly marker: string;
}

function blocksOf(file: string): Block[] {
  const lines = readFileSync(join(repositoryRoot, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^```(.*)$/.exec(lines[index] ?? '');
    if (open === null) continue;
    let end = index + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end] ?? '')) end += 1;
    blocks.push({
      where: `${file}:${index + 1}`,
      language: (open[1] ?? '').trim(),
      code: `${lines.slice(index + 1, end).join('\n')}\n`,
      marker: /^<!-- .* -->$/.test(lines[index - 1] ?? '') ? (lines[index - 1] ?? '') : '',
    });
    index = end;
  }
  return blocks;
}

const blocks = markdownFiles.flatMap(blocksOf);
const reference = await buildApiReference();
const entries = new Map(reference.entries.map((entry) => [entry.specifier, entry]));

describe('code blocks in README.md and docs/*.md', () => {
  it('finds them', () => {
    expect(blocks.length).toBeGreaterThan(100);
  });

  it.each(blocks.map((block) => [block.where, block] as const))(
    '%s compiles or says what it is',
    (_, block) => {
      const known = [...COMPILED, ...Object.keys(UNCOMPILED)];
      expect(
        known,
        'give the block a language: ```ts (a compiled example), ```sh (a shell session), ```text (output) or ```mermaid',
      ).toContain(block.language);
      if (!COMPILED.includes(block.language)) return;
      const example = /^<!-- example: (docs\/examples\/\S+\.ts) -->$/.exec(block.marker);
      const apiExample = /^<!-- api-example: (\S+) (\S+) -->$/.exec(block.marker);
      if (example !== null) {
        // tsconfig.json includes docs/examples, so `tsc` checks the file the block copies.
        expect(block.code).toBe(readFileSync(join(repositoryRoot, example[1] ?? ''), 'utf8'));
      } else if (apiExample !== null && block.where.startsWith('docs/api.md:')) {
        const value = entries
          .get(apiExample[1] ?? '')
          ?.values.find((candidate) => candidate.name === apiExample[2]);
        expect(block.code).toBe(`${value?.example}\n`);
      } else {
        expect.fail(
          'a ts block must be a compiled example: put it in docs/examples/<name>.ts, add <!-- example: docs/examples/<name>.ts --> above the block and run npm run docs:examples',
        );
      }
    },
  );

  const imports = blocks
    .filter((block) => COMPILED.includes(block.language))
    .flatMap((block) =>
      splitImports(block.code).imports.map((clause) => [block.where, clause] as const),
    )
    .filter(([, clause]) => clause.specifier.startsWith('loopkeeper'));

  it('finds the imports from loopkeeper entries', () => {
    expect(imports.length).toBeGreaterThan(20);
  });

  it.each(imports.map(([where, clause]) => [`${where} '${clause.specifier}'`, clause] as const))(
    '%s: the entry exports every name imported from it',
    (_, clause) => {
      const entry = entries.get(clause.specifier);
      expect(
        entry,
        `'${clause.specifier}' is not an entry of package.json "exports"`,
      ).toBeDefined();
      const exported = new Set([
        ...(entry?.values.map((value) => value.name) ?? []),
        ...(entry?.types ?? []),
      ]);
      for (const { name } of clause.names) {
        const imported = name.split(/\s+as\s+/)[0] ?? name;
        expect(exported.has(imported), `${imported} is not exported by '${clause.specifier}'`).toBe(
          true,
        );
      }
    },
  );

  // Under pnpm's strict layout a package you import must be one you installed, even one
  // loopkeeper depends on (xstate): an example names what to install, in its own
  // `// npm install` line or in a shell block above it on the same page.
  const foreignImports = blocks.flatMap((block, index) => {
    if (!/^<!-- example: /.test(block.marker)) return [];
    const page = block.where.split(':')[0];
    const installs = [
      block.code,
      ...blocks
        .slice(0, index)
        .filter((earlier) => earlier.where.split(':')[0] === page && earlier.language === 'sh')
        .map((earlier) => earlier.code),
    ]
      .flatMap((code) => code.split('\n'))
      .filter((line) => /npm install /.test(line))
      .join('\n');
    return [
      ...new Set(
        [...block.code.matchAll(/^import\s[^;]*?from\s*'([^']+)'/gm)]
          .map((match) => match[1] ?? '')
          .filter(
            (specifier) => !specifier.startsWith('loopkeeper') && !specifier.startsWith('node:'),
          )
          .map((specifier) =>
            specifier
              .split('/')
              .slice(0, specifier.startsWith('@') ? 2 : 1)
              .join('/'),
          ),
      ),
    ].map((name) => [`${block.where} ${name}`, name, installs] as const);
  });

  it('finds the examples that import other packages', () => {
    expect(foreignImports.length).toBeGreaterThan(4);
  });

  it.each(foreignImports)('%s: the example says to install it', (_, name, installs) => {
    expect(installs).toMatch(
      new RegExp(`npm install .*${name.replace('/', '\\/')}(?:[@\\s]|$)`, 'm'),
    );
  });
});
