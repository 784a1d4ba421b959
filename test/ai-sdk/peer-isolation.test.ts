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

const isAiSdk = (name: string) =>
  name === 'ai' || name.startsWith('ai/') || name.startsWith('@ai-sdk/');

describe('the loopkeeper/ai-sdk entry', () => {
  it('is the only entry that imports the AI SDK: the core, ./model and ./testing never do', async () => {
    for (const entry of [
      '../../src/index.ts',
      '../../src/model/index.ts',
      '../../src/testing/index.ts',
    ]) {
      const { packages, files } = await importsOf(entry);
      expect(packages.filter(isAiSdk), entry).toEqual([]);
      expect(
        files.filter((file) => file.includes('/ai-sdk/')),
        entry,
      ).toEqual([]);
    }
  });

  it('imports no peer but the AI SDK, so it loads without openai, pg or OpenTelemetry', async () => {
    const { packages } = await importsOf('../../src/ai-sdk/index.ts');
    const peers = ['openai', 'pg', '@opentelemetry/api', '@langchain/core', 'langchain'];
    expect(packages.filter((name) => peers.some((peer) => name.startsWith(peer)))).toEqual([]);
  });
});
