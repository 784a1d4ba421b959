import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { openAIChatModel } from 'loopkeeper';
import { type FakeOpenAIServer, startFakeOpenAIServer } from 'loopkeeper/testing';
import { afterEach, describe, expect, it } from 'vitest';

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The openai version these tests are meant to run against (see scripts/test-runtimes.sh). */
function expectedVersion(): string {
  const directory = process.env['LOOPKEEPER_OPENAI_DIR'];
  const manifest =
    directory === undefined
      ? join(dirname(createRequire(import.meta.url).resolve('openai')), 'package.json')
      : join(directory, 'node_modules', 'openai', 'package.json');
  return JSON.parse(readFileSync(manifest, 'utf8')).version;
}

describe('the openai SDK in use', () => {
  it('is the one the run asked for: the client names its version in every request', async () => {
    server = await startFakeOpenAIServer({ replies: [{ text: 'Hi.' }] });
    const model = openAIChatModel({ baseURL: server.url, apiKey: 'test', model: 'gpt-test' });
    await model.generate({
      transcript: [{ kind: 'user', id: 'u', content: 'Hello.' }],
      tools: [],
      signal: new AbortController().signal,
    });
    expect(server.requests[0]?.headers['x-stainless-package-version']).toBe(expectedVersion());
  });
});
