import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createAgentLoop,
  FileSessionStore,
  type Item,
  MemorySessionStore,
  openAgentLoop,
  runTurn,
  type SessionEvent,
  type SessionStore,
  validateTranscript,
} from 'loopkeeper';
import type { NewSessionEvent } from 'loopkeeper/log';
import { ScriptedModel } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { currentLockOwner, formatLockOwner } from '../../src/log/lock-owner.js';
import { sharedTokenCounter } from '../support/loop-harness.js';
import { collect } from '../support/session-events.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

const question: Item = { kind: 'user', id: 'u1', content: 'List the files.' };
const callingLs: Item = {
  kind: 'assistant',
  id: 'a1',
  toolCalls: [{ id: 'call_ls', name: 'ls', arguments: '{}' }],
};

/** What a process killed mid-run leaves in the log: a run started, items, no `run-finished`. */
function crashedRun(items: readonly Item[]): NewSessionEvent[] {
  return [
    { type: 'run-started', runId: 'killed' },
    ...items.map(
      (item): NewSessionEvent => ({ type: 'items-appended', runId: 'killed', items: [item] }),
    ),
  ];
}

/** A model that checks, when asked, that the transcript it receives is valid. */
function validatingModel(): { model: ScriptedModel; problems: unknown[] } {
  const problems: unknown[] = [];
  const model = new ScriptedModel({
    script: (request) => {
      problems.push(...validateTranscript(request.transcript));
      return { text: 'Resumed.' };
    },
  });
  return { model, problems };
}

function finishedRuns(events: readonly SessionEvent[]) {
  return events.filter((event) => event.type === 'run-finished');
}

describe("openAgentLoop({interrupted: 'fail'}) on a session whose last run was never closed", () => {
  it('closes the run as interrupted, answers its open tool call, and the next run sends a valid transcript', async () => {
    const store = new MemorySessionStore();
    await store.append('s', crashedRun([question, callingLs]));
    const { model, problems } = validatingModel();
    const loop = await openAgentLoop({ model, store, sessionId: 's', tokens, interrupted: 'fail' });

    const healed = await collect(store.read('s'));
    expect(healed.slice(3).map((event) => event.type)).toEqual(['items-appended', 'run-finished']);
    const [answer] = healed[3]?.type === 'items-appended' ? healed[3].items : [];
    expect(answer).toMatchObject({ kind: 'toolResult', callId: 'call_ls', isError: true });
    expect(healed[4]).toMatchObject({
      runId: 'killed',
      outcome: 'failed',
      error: { code: 'interrupted' },
    });
    expect(loop.session.pendingToolCalls).toEqual([]);

    loop.start();
    const next = await runTurn(loop, 'Go on.');
    loop.stop();
    expect(next.outcome).toBe('completed');
    expect(model.requests).toHaveLength(1);
    expect(problems).toEqual([]);
    expect(loop.session.runs).toBe(2);
    expect(finishedRuns(await collect(store.read('s'))).map((event) => event.runId)).toEqual([
      'killed',
      next.runId,
    ]);
  });

  it('closes a run killed with no call open without inventing results, and heals only once', async () => {
    const store = new MemorySessionStore();
    const answered: Item = { kind: 'assistant', id: 'a1', text: 'Two files.' };
    await store.append('s', crashedRun([question, answered]));

    await openAgentLoop({
      model: validatingModel().model,
      store,
      sessionId: 's',
      tokens,
      interrupted: 'fail',
    });
    const healed = await collect(store.read('s'));
    expect(healed.map((event) => event.type)).toEqual([
      'run-started',
      'items-appended',
      'items-appended',
      'run-finished',
    ]);

    // A second reopen finds the run closed and writes nothing.
    await openAgentLoop({
      model: validatingModel().model,
      store,
      sessionId: 's',
      tokens,
      interrupted: 'fail',
    });
    expect(await collect(store.read('s'))).toHaveLength(healed.length);
  });

  it('heals on the first run of a lazily opened loop, before logging the new message', async () => {
    const store: SessionStore = new MemorySessionStore();
    await store.append('s', crashedRun([question, callingLs]));
    const { model, problems } = validatingModel();
    const loop = createAgentLoop({ model, store, sessionId: 's', tokens });
    loop.start();
    const next = await runTurn(loop, 'Go on.');
    loop.stop();
    expect(next.outcome).toBe('completed');
    expect(problems).toEqual([]);
    const events = await collect(store.read('s'));
    const closed = events.findIndex((event) => event.type === 'run-finished');
    const started = events.findIndex(
      (event) => event.type === 'run-started' && event.runId === next.runId,
    );
    expect(closed).toBeGreaterThan(0);
    expect(started).toBeGreaterThan(closed);
  });
});

describe('FileSessionStore after a crash of a process that had this pid', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'loopkeeper-interrupted-'));
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  // A container whose node is PID 1 restarts with the same pid: the lock its first life left
  // differs only in start time (and token), and must not keep the session locked forever.
  it('takes over the lock left by the earlier process with the same pid and resumes the session', async () => {
    const writer = new FileSessionStore({ directory });
    await writer.append('s', crashedRun([question, callingLs]));
    await writer.close();
    const self = currentLockOwner();
    if (self.start === undefined) throw new Error('this test needs /proc start times');
    const lockPath = join(directory, 's.lock');
    await writeFile(
      lockPath,
      formatLockOwner({ ...self, token: 'first-life', start: `${self.start}0` }),
    );

    const store = new FileSessionStore({ directory });
    const { model, problems } = validatingModel();
    const loop = await openAgentLoop({ model, store, sessionId: 's', tokens, interrupted: 'fail' });
    expect(JSON.parse(await readFile(lockPath, 'utf8'))).toMatchObject({ token: self.token });
    loop.start();
    const next = await runTurn(loop, 'Go on.');
    loop.stop();
    await store.close();
    expect(next.outcome).toBe('completed');
    expect(problems).toEqual([]);
    const reader = new FileSessionStore({ directory });
    const outcomes = finishedRuns(await collect(reader.read('s'))).map((event) => event.outcome);
    expect(outcomes).toEqual(['failed', 'completed']);
    await reader.close();
  });
});
