import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const markdownFiles = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => join('docs', file)),
];

interface CodeBlock {
  readonly file: string;
  readonly line: number;
  readonly language: string;
  readonly code: string;
  readonly example: string | undefined;
  readonly apiExample: boolean;
}

/** Every fenced code block of a markdown file, with the example file named just above it. */
function codeBlocks(file: string): CodeBlock[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^```(\w*)/.exec(lines[index] ?? '');
    if (open === null) continue;
    const start = index;
    let end = index + 1;
    while (end < lines.length && lines[end] !== '```') end += 1;
    const marker = /<!-- example: (\S+) -->/.exec(lines[start - 1] ?? '');
    blocks.push({
      file,
      line: start + 1,
      language: open[1] ?? '',
      code: `${lines.slice(start + 1, end).join('\n')}\n`,
      example: marker?.[1],
      apiExample: /^<!-- api-example: /.test(lines[start - 1] ?? ''),
    });
    index = end;
  }
  return blocks;
}

// docs/api.md's blocks are the @example of each value, type-checked in test/api-examples
// (test/docs/code-blocks.test.ts checks them against it).
const typescriptBlocks = markdownFiles
  .flatMap(codeBlocks)
  .filter((block) => ['ts', 'typescript'].includes(block.language))
  .filter((block) => !block.apiExample);

describe('code samples in README.md and docs/', () => {
  it('finds the samples', () => {
    expect(typescriptBlocks.length).toBeGreaterThan(3);
  });

  // The example files are type-checked by `tsc` (tsconfig includes docs/examples) and some are
  // run below, so a sample shown to users cannot drift from the API.
  it.each(typescriptBlocks.map((block) => [`${block.file}:${block.line}`, block] as const))(
    '%s is a verbatim copy of a compiled example file',
    (_, block) => {
      expect(
        block.example,
        'add <!-- example: docs/examples/<name>.ts --> above the block',
      ).toBeDefined();
      const source = readFileSync(join(root, block.example ?? ''), 'utf8');
      expect(block.code).toBe(source);
    },
  );
});
