import { describe, expect, it } from 'vitest';
import { importsOf } from '../support/bundle-imports.js';

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
