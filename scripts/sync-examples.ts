/**
 * Copies each example file into the markdown code block marked with
 * `<!-- example: docs/examples/<name>.ts -->`, in README.md and docs/*.md.
 * Run with `npm run docs:examples`; test/docs/examples.test.ts fails when a block is stale.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const files = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => join('docs', file)),
];

for (const file of files) {
  const path = join(root, file);
  const before = readFileSync(path, 'utf8');
  const after = before.replace(
    /<!-- example: (\S+) -->\n```(\w*)\n[\s\S]*?\n?```/g,
    (_, example: string, language: string) =>
      `<!-- example: ${example} -->\n\`\`\`${language || 'ts'}\n${readFileSync(join(root, example), 'utf8')}\`\`\``,
  );
  if (after !== before) {
    writeFileSync(path, after);
    console.log(`updated ${file}`);
  }
}
