import { defineTool } from 'loopkeeper';
import {
  type FakeOpenAIServer,
  type FakeOpenAIServerOptions,
  startFakeOpenAIServer,
} from 'loopkeeper/testing';
import { afterEach } from 'vitest';

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

/** A tool that returns a large output (400 lines), so a few calls push a loop over its budget. */
export const readLogTool = defineTool({
  name: 'read_log',
  description: 'Returns a long log.',
  parameters: { type: 'object', properties: { part: { type: 'integer' } }, required: ['part'] },
  execute: ({ part }: { part: number }) => `log part ${part}\n${'line of output\n'.repeat(400)}`,
});
