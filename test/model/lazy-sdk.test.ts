import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { ConfigError, openAIChatModel, openAISummarizer } from 'loopkeeper';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repository = fileURLToPath(new URL('../..', import.meta.url));

let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'loopkeeper-lazy-sdk-'));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('openAIChatModel', () => {
  it('importing loopkeeper loads no openai module; an OpenAI adapter loads the SDK for its requests', async () => {
    const log = join(directory, 'resolved.log');
    // A module-resolution hook that writes every openai module Node resolves to a file.
    const hook = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (/node_modules\\/openai\\//.test(result.url)) appendFileSync(${JSON.stringify(log)}, result.url + '\\n');
  return result;
}`;
    await writeFile(join(directory, 'log-hooks.mjs'), hook);
    await writeFile(log, '');
    const source = (path: string) => JSON.stringify(pathToFileURL(join(repository, path)).href);
    const script = `
      import { register } from 'node:module';
      import { readFileSync } from 'node:fs';
      register(${JSON.stringify(pathToFileURL(join(directory, 'log-hooks.mjs')).href)});
      const { createAgentLoop, openAIChatModel, runTurn } = await import(${source('src/index.ts')});
      const { startFakeOpenAIServer } = await import(${source('src/testing/index.ts')});
      const server = await startFakeOpenAIServer({ replies: [{ text: 'Hello.' }] });
      const before = readFileSync(${JSON.stringify(log)}, 'utf8');
      const model = openAIChatModel({ baseURL: server.url, apiKey: 'k', model: 'gpt-4o-mini' });
      const loop = createAgentLoop({ model });
      loop.start();
      const result = await runTurn(loop, 'Hi');
      loop.stop();
      await server.close();
      console.log(JSON.stringify([before, result.outcome, result.text, readFileSync(${JSON.stringify(log)}, 'utf8')]));
    `;
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: repository },
    );
    const [before, outcome, text, after] = JSON.parse(stdout.trim().split('\n').at(-1) ?? '[]');
    expect(before).toBe('');
    expect([outcome, text]).toEqual(['completed', 'Hello.']);
    expect(after).toMatch(/node_modules\/openai\//);
  });

  it('still refuses, when it is made, an adapter with no key given and none in the environment', () => {
    const saved = { api: process.env['OPENAI_API_KEY'], admin: process.env['OPENAI_ADMIN_KEY'] };
    delete process.env['OPENAI_API_KEY'];
    delete process.env['OPENAI_ADMIN_KEY'];
    try {
      expect(() => openAIChatModel({ baseURL: 'http://127.0.0.1:9/v1', model: 'm' })).toThrow(
        ConfigError,
      );
      expect(() => openAISummarizer({ baseURL: 'http://127.0.0.1:9/v1', model: 'm' })).toThrow(
        /OPENAI_API_KEY/,
      );
      process.env['OPENAI_API_KEY'] = 'from-the-environment';
      expect(() => openAIChatModel({ baseURL: 'http://127.0.0.1:9/v1', model: 'm' })).not.toThrow();
    } finally {
      for (const [name, value] of [
        ['OPENAI_API_KEY', saved.api],
        ['OPENAI_ADMIN_KEY', saved.admin],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
