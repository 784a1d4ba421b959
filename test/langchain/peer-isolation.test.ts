import { describe, expect, it } from 'vitest';
import { importsOf } from '../support/bundle-imports.js';

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
