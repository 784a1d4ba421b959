import { describe, expect, it } from 'vitest';
import { importsOf } from '../support/bundle-imports.js';

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
