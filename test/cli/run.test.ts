import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FakeOpenAIServer, startFakeOpenAIServer } from 'loopkeeper/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { binPath, childEnvironment, ensureCliBuilt, runLoopkeeper } from './support/cli-process.js';

describe('loopkeeper run', () => {
  let directory: string;
  let workspace: string;
  let sessions: string;
  let server: FakeOpenAIServer | undefined;

  beforeAll(async () => {
    await ensureCliBuilt();
    directory = await mkdtemp(join(tmpdir(), 'loopkeeper-cli-run-'));
    workspace = join(directory, 'workspace');
    sessions = join(directory, 'sessions');
    await mkdir(join(workspace, 'docs'), { recursive: true });
    await writeFile(join(workspace, 'docs', 'notes.txt'), 'The launch code is TANGERINE-42.\n');
    await writeFile(join(directory, 'secret.txt'), 'outside the workspace\n');
    await symlink(join(directory, 'secret.txt'), join(workspace, 'link-out.txt'));
  }, 120_000);

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  function runAgainst(url: string, args: readonly string[]) {
    return runLoopkeeper(
      ['run', ...args, '--cwd', workspace, '--dir', sessions, '--model', 'fake-model'],
      {
        env: childEnvironment({ OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: url }),
      },
    );
  }

  it('exits 2 and says exactly what to set when OPENAI_API_KEY is missing', async () => {
    const result = await runLoopkeeper(['run', 'summarize the notes']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const [message, usage] = result.stderr.trim().split('\n');
    expect(message).toMatch(/^loopkeeper run: OPENAI_API_KEY is not set\./);
    expect(message).toContain('export OPENAI_API_KEY=');
    expect(message).toContain('OPENAI_BASE_URL');
    expect(usage).toMatch(/^Usage: loopkeeper run /);
  });

  it('completes a task with a tool call against a local OpenAI-compatible server, streaming the answer', async () => {
    server = await startFakeOpenAIServer({
      apiKey: 'test-key',
      replies: [
        { toolCalls: [{ name: 'search_text', arguments: { pattern: 'launch code' } }] },
        { toolCalls: [{ name: 'read_file', arguments: { path: 'docs/notes.txt' } }] },
        { text: 'The launch code is TANGERINE-42 (docs/notes.txt, line 1).', chunkSize: 5 },
      ],
    });
    const result = await runAgainst(server.url, [
      'What is the launch code?',
      '--session',
      'launch-task',
    ]);
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('The launch code is TANGERINE-42 (docs/notes.txt, line 1).\n');
    expect(result.stderr).toContain('[tool] search_text {"pattern":"launch code"}');
    expect(result.stderr).toContain('[tool] read_file {"path":"docs/notes.txt"}');
    expect(result.stderr).toContain('Done in 3 steps');

    expect(server.requests).toHaveLength(3);
    expect(server.requests.every((request) => request.body?.stream === true)).toBe(true);
    expect(server.requests[0]?.body?.model).toBe('fake-model');
    const toolNames = server.requests[0]?.body?.tools?.map((tool) =>
      tool.type === 'function' ? tool.function.name : '',
    );
    expect(toolNames).toEqual(['list_files', 'read_file', 'search_text', 'write_file']);
    const lastMessages = server.requests[2]?.body?.messages ?? [];
    const toolMessages = lastMessages.filter((message) => message.role === 'tool');
    expect(toolMessages.map((message) => message.content)).toEqual([
      'docs/notes.txt:1: The launch code is TANGERINE-42.',
      '1: The launch code is TANGERINE-42.',
    ]);

    const log = await readFile(join(sessions, 'launch-task.jsonl'), 'utf8');
    expect(
      log
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).type),
    ).toContain('run-finished');
  });

  it('refuses tool paths that leave the working directory, and the run still completes', async () => {
    server = await startFakeOpenAIServer({
      apiKey: 'test-key',
      replies: [
        {
          toolCalls: [
            { name: 'read_file', arguments: { path: '../secret.txt' } },
            { name: 'read_file', arguments: { path: join(directory, 'secret.txt') } },
            { name: 'read_file', arguments: { path: 'link-out.txt' } },
            { name: 'list_files', arguments: { path: '..' } },
          ],
        },
        { text: 'I cannot read files outside the working directory.' },
      ],
    });
    const result = await runAgainst(server.url, ['Read ../secret.txt']);
    expect(result.code).toBe(0);
    const messages = server.requests[1]?.body?.messages ?? [];
    const outputs = messages
      .filter((message) => message.role === 'tool')
      .map((message) => String(message.content));
    expect(outputs).toHaveLength(4);
    for (const output of outputs) {
      expect(output).toContain('outside the working directory');
      expect(output).not.toContain('outside the workspace');
    }
  });

  it('resumes a session by id: the second task sees the first one', async () => {
    server = await startFakeOpenAIServer({
      apiKey: 'test-key',
      replies: [{ text: 'First answer.' }, { text: 'Second answer.' }],
    });
    expect((await runAgainst(server.url, ['first task', '--session', 'resumed'])).code).toBe(0);
    const second = await runAgainst(server.url, ['second task', '--session', 'resumed']);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe('Second answer.\n');
    const messages = server.requests[1]?.body?.messages ?? [];
    expect(messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
    ]);
    expect(messages[1]?.content).toBe('first task');
  });

  it('exits 1 with one line when the endpoint refuses the key', async () => {
    server = await startFakeOpenAIServer({ apiKey: 'the-right-key' });
    const result = await runAgainst(server.url, ['anything']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const failure = result.stderr.trim().split('\n').at(-1);
    expect(failure).toMatch(/^loopkeeper run: error: the run ended failed: ModelError: /);
  });

  it('exits 130 on Ctrl+C (SIGINT) and says the session log keeps what was done', async () => {
    let requested: () => void = () => undefined;
    const request = new Promise<void>((resolve) => {
      requested = resolve;
    });
    // The reply never comes: the run is mid-inference when it is interrupted.
    server = await startFakeOpenAIServer({
      apiKey: 'test-key',
      handler: () => {
        requested();
        return new Promise(() => undefined);
      },
    });
    const child = spawn(
      process.execPath,
      [binPath, 'run', 'wait for it', '--cwd', workspace, '--dir', sessions, '--model', 'm'],
      {
        env: childEnvironment({ OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: server.url }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    await request;
    child.kill('SIGINT');
    expect(await closed).toBe(130);
    expect(stderr.trim().split('\n').at(-1)).toMatch(
      /^loopkeeper run: interrupted \(Ctrl\+C\); the session log keeps everything so far: continue with --session \S+$/,
    );
  });
});
