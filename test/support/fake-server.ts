import { defineTool, openAIChatModel } from 'loopkeeper';
import type { OpenAIChatModelOptions } from 'loopkeeper/model';
import {
  type FakeOpenAIServer,
  type FakeOpenAIServerOptions,
  startFakeOpenAIServer,
} from 'loopkeeper/testing';
import { afterEach, beforeEach } from 'vitest';

/**
 * A fake OpenAI server per test, closed after it: `start(options)` starts one and returns it.
 * Call at the top of a test file.
 */
export function useFakeServer(): (options?: FakeOpenAIServerOptions) => Promise<FakeOpenAIServer> {
  let server: FakeOpenAIServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return async (options) => {
    server = await startFakeOpenAIServer(options);
    return server;
  };
}

/**
 * A fresh fake OpenAI server for every test of the file, closed after it: `server()` is the
 * current test's. Call at the top of a test file.
 */
export function fakeServerPerTest(options?: FakeOpenAIServerOptions): () => FakeOpenAIServer {
  let current: FakeOpenAIServer | undefined;
  beforeEach(async () => {
    current = await startFakeOpenAIServer(options);
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return () => {
    if (current === undefined) throw new Error('the fake server runs only inside a test');
    return current;
  };
}

/** `openAIChatModel` pointed at a fake server, with the test key and model name. */
export function fakeServerModel(
  server: FakeOpenAIServer,
  options: Partial<OpenAIChatModelOptions> = {},
) {
  return openAIChatModel({
    baseURL: server.url,
    apiKey: 'test-key',
    model: 'gpt-test',
    ...options,
  });
}

/** A tool that returns a large output (400 lines), so a few calls push a loop over its budget. */
export const readLogTool = defineTool({
  name: 'read_log',
  description: 'Returns a long log.',
  parameters: { type: 'object', properties: { part: { type: 'integer' } }, required: ['part'] },
  execute: ({ part }: { part: number }) => `log part ${part}\n${'line of output\n'.repeat(400)}`,
});
