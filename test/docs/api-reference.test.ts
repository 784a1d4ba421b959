import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type ApiEntry,
  buildApiReference,
  repositoryRoot,
  splitImports,
} from '../../scripts/api-reference.js';

const reference = await buildApiReference();
const entries: readonly ApiEntry[] = reference.entries;
const values = entries.flatMap((entry) =>
  entry.values.map((value) => [`${entry.specifier} ${value.name}`, entry, value] as const),
);
const specifiers = new Map(entries.map((entry) => [entry.specifier, entry]));

describe('the API reference (scripts/api-reference.ts)', () => {
  it('reads every entry of package.json "exports"', () => {
    expect(entries.map((entry) => entry.specifier)).toContain('loopkeeper/compaction');
    expect(entries.length).toBeGreaterThanOrEqual(13);
    expect(values.length).toBeGreaterThan(150);
  });

  it.each(values)('%s has a doc comment with an @example block', (_, __, value) => {
    expect(value.declaredIn, 'its declaration was not found in the sources').toBeDefined();
    expect(value.comment, `add a /** … */ doc comment above its declaration`).toBeDefined();
    expect(value.summary, 'the doc comment needs a sentence before its tags').toBeDefined();
    expect(value.example, 'add an @example with a ```ts block to its doc comment').toBeDefined();
  });

  // Each example imports the value it documents from a public entry that exports it, so the
  // type-check of test/api-examples proves the documented name is reachable as users write it.
  it.each(values)('the example of %s imports it from a public entry', (_, entry, value) => {
    const { imports } = splitImports(value.example ?? '');
    const importers = imports.filter((clause) =>
      clause.names.some(({ name, typeOnly }) => !typeOnly && name === value.name),
    );
    expect(importers.map((clause) => clause.specifier)).not.toEqual([]);
    for (const clause of importers) {
      const from = specifiers.get(clause.specifier);
      expect(from, `'${clause.specifier}' is not a public entry`).toBeDefined();
      const exported = from?.values.find((candidate) => candidate.name === value.name);
      expect(exported?.declaredIn, `'${clause.specifier}' does not export it`).toBe(
        value.declaredIn,
      );
    }
    expect(entry.values).toContain(value);
  });

  it.each([...reference.files.keys()])('%s is up to date (npm run docs:api)', (path) => {
    let written: string | undefined;
    try {
      written = readFileSync(join(repositoryRoot, path), 'utf8');
    } catch {
      written = undefined;
    }
    expect(written).toBe(reference.files.get(path));
  });

  // Each value's example is on the page, once: under the first entry that exports it.
  it('shows every value with its example in docs/api.md', () => {
    const page = readFileSync(join(repositoryRoot, 'docs', 'api.md'), 'utf8');
    const shown = new Set<string>();
    for (const entry of entries) {
      for (const value of entry.values) {
        const key = `${value.declaredIn}#${value.declaredName}`;
        const marker = `<!-- api-example: ${entry.specifier} ${value.name} -->\n\`\`\`ts\n${value.example}\n\`\`\``;
        if (shown.has(key)) {
          expect(page, `${entry.specifier} ${value.name}`).toContain(
            `- \`${value.name}\`${value.literal === undefined ? '' : ` = \`${value.literal}\``} (also in`,
          );
        } else {
          expect(page, `${entry.specifier} ${value.name}`).toContain(marker);
          shown.add(key);
        }
      }
    }
    expect(shown.size).toBeGreaterThan(150);
  });

  it('gives every entry a purpose from its module comment', () => {
    for (const entry of entries) expect(entry.purpose, entry.source).toBeDefined();
  });
});
