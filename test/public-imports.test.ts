import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as loopkeeper from 'loopkeeper';
import * as compaction from 'loopkeeper/compaction';
import * as errors from 'loopkeeper/errors';
import * as log from 'loopkeeper/log';
import * as machines from 'loopkeeper/machines';
import * as model from 'loopkeeper/model';
import * as runtime from 'loopkeeper/runtime';
import * as testing from 'loopkeeper/testing';
import * as tokens from 'loopkeeper/tokens';
import * as tools from 'loopkeeper/tools';
import * as transcript from 'loopkeeper/transcript';
import { describe, expect, it } from 'vitest';

const testRoot = fileURLToPath(new URL('.', import.meta.url));
const entries = [
  loopkeeper,
  compaction,
  errors,
  log,
  machines,
  model,
  runtime,
  testing,
  tokens,
  tools,
  transcript,
];
const publicValues = new Set(entries.flatMap((entry) => Object.keys(entry)));

function testFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The value names a file imports from the sources by path rather than by entry. */
function deepValueImports(source: string): string[] {
  const names: string[] = [];
  const deep = /import (type )?\{([^}]*)\} from '(?:\.\.?\/)+(?:src|machines)\/[^']+';/g;
  for (const [, typeOnly, list] of source.matchAll(deep)) {
    if (typeOnly !== undefined) continue;
    for (const spec of (list ?? '').split(',')) {
      const name = spec.trim().split(' as ')[0]?.trim() ?? '';
      if (name !== '' && !name.startsWith('type ')) names.push(name);
    }
  }
  return names;
}

describe('how the tests import the library', () => {
  it('reaches every public value through a public entry, as users do; deep paths only for internals', () => {
    const offenders: string[] = [];
    for (const file of testFiles(testRoot)) {
      for (const name of deepValueImports(readFileSync(file, 'utf8'))) {
        if (publicValues.has(name)) offenders.push(`${relative(testRoot, file)}: ${name}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('the check sees a deep import of a public value', () => {
    const sample = [
      'import { createAgentLoop } from ',
      "'../../src/runtime/create-agent-loop.js';",
    ].join('');
    expect(deepValueImports(sample)).toEqual(['createAgentLoop']);
    expect(publicValues.has('createAgentLoop')).toBe(true);
  });
});
