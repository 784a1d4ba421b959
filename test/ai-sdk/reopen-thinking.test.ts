import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeAnthropicServer, startFakeAnthropicServer } from 'loopkeeper/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleChild } from '../support/bundle-child.js';

const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));
let module: string;
let root: string;
let server: FakeAnthropicServer;

beforeAll(async () => {
  // Inside the checkout, so the bundle's external packages (@ai-sdk/anthropic) resolve.
  const cache = join(repositoryRoot, 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  root = await mkdtemp(join(cache, 'loopkeeper-ai-sdk-reopen-'));
  module = await bundleChild({ script: './child-ai-sdk-session.ts', directory: root });
});

afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

/** Runs the child to its exit and returns the JSON lines it printed. */
function runChild(args: readonly string[]): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [module, ...args], {
      cwd: repositoryRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`child exited ${code}: ${stderr}`));
      else {
        resolve(
          stdout
            .split('\n')
            .filter((line) => line.startsWith('{'))
            .map((line) => JSON.parse(line) as Record<string, unknown>),
        );
      }
    });
  });
}

const thinking = {
  type: 'thinking',
  thinking: 'Deploy needs approval — wait for it, then ship ✓ "7"',
  signature: 'ErUBCkYIBRgCIkD+/Zq9x1b2Q3z==\u00e9',
};

describe('aiSdkModel: a signed thinking block after the session is reopened in a new process', () => {
  it('goes back byte-identical in the next request of the tool turn, read from the log alone', async () => {
    server = await startFakeAnthropicServer({
      replies: [
        {
          thinking: [{ thinking: thinking.thinking, signature: thinking.signature }],
          toolCalls: [{ id: 'toolu_deploy', name: 'deploy', input: { version: '7' } }],
        },
        { text: 'Release 7 is out.' },
      ],
    });
    const directory = join(root, 'sessions');
    const first = await runChild([directory, 'reopen', server.url, 'no']);
    expect(first).toEqual([{ type: 'paused', pending: ['toolu_deploy'] }]);
    expect(server.requests).toHaveLength(1);
    // The first process is gone; the log on disk is all the second one has.
    const log = await readFile(join(directory, 'reopen.jsonl'), 'utf8');
    expect(log).toContain(JSON.stringify(thinking.signature));

    const second = await runChild([directory, 'reopen', server.url, 'yes']);
    expect(second.at(-1)).toEqual({
      type: 'done',
      outcome: 'completed',
      text: 'Release 7 is out.',
    });
    expect(server.requests).toHaveLength(2);
    const messages = server.requests[1]?.body?.['messages'] as { content: unknown[] }[];
    expect(messages[1]?.content[0]).toEqual(thinking);
    expect(server.requests[1]?.rawBody).toContain(JSON.stringify(thinking));
  });
});
