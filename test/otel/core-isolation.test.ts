import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

/** Every bare package a bundle of `entry` imports, and every source file it pulls in. */
async function importsOf(entry: string) {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
  });
  const inputs = Object.values(result.metafile.inputs);
  return {
    packages: [
      ...new Set(
        inputs.flatMap((input) => input.imports.filter((i) => i.external).map((i) => i.path)),
      ),
    ],
    files: Object.keys(result.metafile.inputs),
  };
}

describe('the loopkeeper/otel entry', () => {
  it('is the only entry that imports @opentelemetry: the core and ./testing never do', async () => {
    for (const entry of ['../../src/index.ts', '../../src/testing/index.ts']) {
      const { packages, files } = await importsOf(entry);
      expect(packages.filter((name) => name.startsWith('@opentelemetry/'))).toEqual([]);
      expect(files.filter((file) => file.includes('/otel/'))).toEqual([]);
    }
    const otel = await importsOf('../../src/otel/index.ts');
    expect(otel.packages.filter((name) => name.startsWith('@opentelemetry/'))).toEqual([
      '@opentelemetry/api',
    ]);
  });
});

describe('the loopkeeper/postgres entry', () => {
  it('is the only entry that imports pg: the core, ./log and ./testing never do', async () => {
    for (const entry of [
      '../../src/index.ts',
      '../../src/log/index.ts',
      '../../src/testing/index.ts',
    ]) {
      const { packages, files } = await importsOf(entry);
      expect(packages.filter((name) => name === 'pg' || name.startsWith('pg/'))).toEqual([]);
      expect(files.filter((file) => file.includes('/postgres/'))).toEqual([]);
    }
    const postgres = await importsOf('../../src/postgres/index.ts');
    expect(postgres.packages.filter((name) => name === 'pg' || name.startsWith('pg-'))).toEqual([
      'pg',
    ]);
  });
});
