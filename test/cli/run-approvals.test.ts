import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionEvent } from 'loopkeeper';
import { type FakeOpenAIServer, startFakeOpenAIServer } from 'loopkeeper/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  binPath,
  childEnvironment,
  ensureCliBuilt,
  packageRoot,
  runLoopkeeper,
} from './support/cli-process.js';

const write = (id: string, path: string, content: string) => ({
  id,
  name: 'write_file',
  arguments: { path, content },
});

describe('loopkeeper run --approve', () => {
  let directory: string;
  let sessions: string;
  let server: FakeOpenAIServer | undefined;
  let workspaceCount = 0;

  beforeAll(async () => {
    await ensureCliBuilt();
    directory = await mkdtemp(join(tmpdir(), 'loopkeeper-cli-run-approvals-'));
    sessions = join(directory, 'sessions');
  }, 120_000);

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  /** A fresh, empty working directory per test, so each one sees only its own writes. */
  async function newWorkspace(): Promise<string> {
    workspaceCount += 1;
    const workspace = join(directory, `workspace-${workspaceCount}`);
    await mkdir(workspace);
    return workspace;
  }

  function argumentsFor(url: string, workspace: string, args: readonly string[]) {
    return {
      args: ['run', ...args, '--cwd', workspace, '--dir', sessions, '--model', 'fake-model'],
      env: childEnvironment({ OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: url }),
    };
  }

  async function readLog(sessionId: string): Promise<SessionEvent[]> {
    const text = await readFile(join(sessions, `${sessionId}.jsonl`), 'utf8');
    return text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as SessionEvent);
  }

  /** The tool messages the model was sent with request `index`. */
  function toolMessages(index: number): string[] {
    const messages = server?.requests[index]?.body?.messages ?? [];
    return messages
      .filter((message) => message.role === 'tool')
      .map((message) => String(message.content));
  }

  it('all: approves every call without asking, logs the decisions, and the file is written', async () => {
    const workspace = await newWorkspace();
    server = await startFakeOpenAIServer({
      apiKey: 'test-key',
      replies: [{ toolCalls: [write('call_a', 'notes/a.txt', 'alpha\n')] }, { text: 'Saved.' }],
    });
    const { args, env } = argumentsFor(server.url, workspace, [
      'Save alpha',
      '--session',
      'approve-all',
      '--approve',
      'all',
    ]);
    const result = await runLoopkeeper(args, { env });
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Saved.\n');
    expect(result.stderr).toContain('approvals: all');
    expect(result.stderr).toContain(
      '[approval] write_file (call_a) approved (--approve all): {"path":"notes/a.txt","content":"alpha\\n"}',
    );
    expect(result.stderr).not.toContain('Allow write_file?');
    expect(await readFile(join(workspace, 'notes', 'a.txt'), 'utf8')).toBe('alpha\n');
    expect(toolMessages(1)).toEqual(['Created notes/a.txt (6 characters).']);
    const log = await readLog('approve-all');
    expect(log.filter((event) => event.type === 'approval-requested')).toHaveLength(1);
    expect(log.filter((event) => event.type === 'approval-decided')).toEqual([
      expect.objectContaining({
        callId: 'call_a',
        approved: true,
        reason: 'approved by loopkeeper run --approve all',
      }),
    ]);
  });

  it('without a terminal the default is none: every call is denied with a reason the model reads', async () => {
    const workspace = await newWorkspace();
    server = await startFakeOpenAIServer({
      apiKey: 'test-key',
      replies: [
        { toolCalls: [write('call_b', 'b.txt', 'beta'), write('call_c', 'c.txt', 'gamma')] },
        { text: 'I was not allowed to write.' },
      ],
    });
    const { args, env } = argumentsFor(server.url, workspace, ['Save beta', '--session', 'deny']);
    const result = await runLoopkeeper(args, { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('I was not allowed to write.\n');
    expect(result.stderr).toContain('approvals: none');
    expect(result.stderr).toContain('[approval] write_file (call_b) denied (--approve none)');
    expect(result.stderr).toContain('[approval] write_file (call_c) denied (--approve none)');
    expect(await readdir(workspace)).toEqual([]);
    expect(toolMessages(1)).toEqual([
      '[loopkeeper] This call was not approved: loopkeeper run was started with --approve none: calls that need approval are denied without asking. It did not run.',
      '[loopkeeper] This call was not approved: loopkeeper run was started with --approve none: calls that need approval are denied without asking. It did not run.',
    ]);
    const decided = (await readLog('deny')).filter((event) => event.type === 'approval-decided');
    expect(decided.map((event) => event.type === 'approval-decided' && event.approved)).toEqual([
      false,
      false,
    ]);
  });

  it('ask: reads one answer per call from stdin, approves y, denies n with its reason, and denies when input ends', async () => {
    const workspace = await newWorkspace();
    server = await startFakeOpenAIServer({
      apiKey: 'test-key',
      replies: [
        {
          toolCalls: [
            write('call_d', 'd.txt', 'delta'),
            write('call_e', 'e.txt', 'epsilon'),
            write('call_f', 'f.txt', 'phi'),
          ],
        },
        { text: 'Wrote d.txt only.' },
      ],
    });
    const { args, env } = argumentsFor(server.url, workspace, [
      'Save three files',
      '--session',
      'ask',
      '--approve',
      'ask',
    ]);
    // "maybe" is no answer: the question is asked again; the third call gets no answer at all.
    const result = await runLoopkeeper(args, { env, input: 'y\nmaybe\nn: not e, please\n' });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Wrote d.txt only.\n');
    const stderr = result.stderr;
    expect(stderr).toContain(
      '[approval] write_file (call_d) wants to run with {"path":"d.txt","content":"delta"}\nAllow write_file? [y/N, or n <reason>] y\n',
    );
    expect(stderr).toContain(
      'Allow write_file? [y/N, or n <reason>] maybe\nAnswer y or n (n <reason> tells the model why).\nAllow write_file? [y/N, or n <reason>] n: not e, please\n',
    );
    expect(stderr).toContain(
      '[approval] write_file (call_f) denied: no answer: the input of loopkeeper run ended',
    );
    expect(await readdir(workspace)).toEqual(['d.txt']);
    // Denied calls are answered first, before the approved one runs.
    expect(toolMessages(1)).toEqual([
      '[loopkeeper] This call was not approved: not e, please. It did not run.',
      '[loopkeeper] This call was not approved: no answer: the input of loopkeeper run ended. It did not run.',
      'Created d.txt (5 characters).',
    ]);
  });

  /** A child whose stdin stays open, so it waits at a question until the test acts. */
  function startChild(args: readonly string[], env: NodeJS.ProcessEnv) {
    const child = spawn(process.execPath, [binPath, ...args], {
      cwd: packageRoot,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    }) as ChildProcessWithoutNullStreams;
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    const asked = new Promise<void>((resolve) => {
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        if (stderr.includes('Allow write_file?')) resolve();
      });
    });
    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('close', (code, signal) => resolve({ code, signal })),
    );
    return {
      child,
      asked,
      closed,
      output: () => ({ stdout, stderr }),
    };
  }

  it('ask: Ctrl+C while a question waits aborts the run and nothing is written', async () => {
    const workspace = await newWorkspace();
    server = await startFakeOpenAIServer({
      apiKey: 'test-key',
      replies: [{ toolCalls: [write('call_g', 'g.txt', 'gamma')] }],
    });
    const { args, env } = argumentsFor(server.url, workspace, [
      'Save gamma',
      '--session',
      'interrupted',
      '--approve',
      'ask',
    ]);
    const run = startChild(args, env);
    await run.asked;
    run.child.kill('SIGINT');
    const { code } = await run.closed;
    expect(code).toBe(130);
    expect(run.output().stderr.trim().split('\n').at(-1)).toMatch(
      /^loopkeeper run: interrupted \(Ctrl\+C\); the session log keeps everything so far/,
    );
    expect(await readdir(workspace)).toEqual([]);
    const log = await readLog('interrupted');
    expect(log.at(-1)).toMatchObject({ type: 'run-finished', outcome: 'aborted' });
    expect(log.some((event) => event.type === 'approval-decided')).toBe(false);
  });

  it('resumes a run whose process was killed while it waited for approval, then runs the new task', async () => {
    const workspace = await newWorkspace();
    server = await startFakeOpenAIServer({
      apiKey: 'test-key',
      replies: [
        { toolCalls: [write('call_h', 'h.txt', 'eta')] },
        { text: 'Wrote h.txt.' },
        { text: 'Second task done.' },
      ],
    });
    const first = argumentsFor(server.url, workspace, [
      'Save eta',
      '--session',
      'resumed',
      '--approve',
      'ask',
    ]);
    const killed = startChild(first.args, first.env);
    await killed.asked;
    killed.child.kill('SIGKILL');
    expect((await killed.closed).signal).toBe('SIGKILL');
    const waiting = await readLog('resumed');
    expect(waiting.at(-1)).toMatchObject({ type: 'approval-requested' });

    const second = argumentsFor(server.url, workspace, [
      'Anything else?',
      '--session',
      'resumed',
      '--approve',
      'all',
    ]);
    const result = await runLoopkeeper(second.args, { env: second.env });
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.code).toBe(0);
    const runId = waiting.find((event) => event.type === 'run-started')?.runId;
    expect(result.stderr).toContain(
      `Run ${runId} of this session did not finish (it waits for approval of 1 tool call); resuming it before the new task.`,
    );
    expect(result.stderr).toContain('[approval] write_file (call_h) approved (--approve all)');
    expect(result.stderr).toContain(`Resumed run ${runId} ended completed.`);
    expect(result.stdout).toBe('Wrote h.txt.\nSecond task done.\n');
    expect(await readFile(join(workspace, 'h.txt'), 'utf8')).toBe('eta');
    const log = await readLog('resumed');
    expect(
      log.filter((event) => event.type === 'run-started').map((event) => event.runId),
    ).toHaveLength(2);
    expect(
      log.flatMap((event) => (event.type === 'run-finished' ? [[event.runId, event.outcome]] : [])),
    ).toEqual([
      [runId, 'completed'],
      [expect.any(String), 'completed'],
    ]);
    // The new task's request came after the resumed run's, with its whole history.
    const roles = server.requests[2]?.body?.messages?.map((message) => message.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
  });
});
