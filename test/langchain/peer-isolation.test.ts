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

const isLangChain = (name: string) =>
  name === 'langchain' || name.startsWith('langchain/') || name.startsWith('@langchain/');

describe('the loopkeeper/langchain entry', () => {
  it('is the only entry that imports LangChain: the core and the AI SDK entry never do', async () => {
    for (const entry of ['../../src/index.ts', '../../src/ai-sdk/index.ts']) {
      const { packages, files } = await importsOf(entry);
      expect(packages.filter(isLangChain), entry).toEqual([]);
      expect(
        files.filter((file) => file.includes('/langchain/')),
        entry,
      ).toEqual([]);
    }
  });

  it('imports no peer but LangChain, so it loads without the AI SDK, openai or pg', async () => {
    const { packages } = await importsOf('../../src/langchain/index.ts');
    const peers = ['ai', 'openai', 'pg', '@opentelemetry/api'];
    const isPeer = (name: string) =>
      name.startsWith('@ai-sdk/') ||
      peers.some((peer) => name === peer || name.startsWith(`${peer}/`));
    expect(packages.filter(isPeer)).toEqual([]);
  });
});
