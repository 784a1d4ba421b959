import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSessionStore, openAgentLoop, runTurn } from 'loopkeeper';
import type { TornLineRecovery } from 'loopkeeper/log';
import { ScriptedModel } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { SessionLogParser } from '../../src/log/session-log-parser.js';
import { user } from '../support/items.js';
import { sharedTokenCounter } from '../support/loop-harness.js';
import { collect, itemsAppended } from '../support/session-events.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

/** A finished session of `runs` exchanges, written by a store that is then closed. */
async function writeSession(directory: string, sessionId: string, runs: number): Promise<number> {
  const store = new FileSessionStore({ directory });
  const events = Array.from({ length: runs }, (_, index) => {
    const runId = `${sessionId}:run-${index}`;
    return [
      { type: 'run-started' as const, runId },
      { ...itemsAppended([user(`u${index}`, `question ${index}`)]), runId },
      {
        ...itemsAppended([{ kind: 'assistant', id: `a${index}`, text: `answer ${index}` }]),
        runId,
      },
      { type: 'run-finished' as const, runId, outcome: 'completed' as const, steps: 1 },
    ];
  }).flat();
  const written = await store.append(sessionId, events);
  await store.close();
  return written.length;
}

describe('FileSessionStore resume', () => {
  let directory: string;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'loopkeeper-resume-'));
  });

  afterEach(async () => {
    vi.restoreAllMocks();
    await rm(directory, { recursive: true, force: true });
  });

  it('reads and checks a resumed log once: the writer reuses the loop’s read', async () => {
    const events = await writeSession(directory, 'resumed', 50);
    const parsed = vi.spyOn(SessionLogParser.prototype, 'pushLine');
    const store = new FileSessionStore({ directory });
    const loop = await openAgentLoop({
      model: new ScriptedModel({ tokens, turns: [{ text: 'welcome back' }] }),
      tokens,
      store,
      sessionId: 'resumed',
    });
    loop.start();
    // Not `runTurn`: it reads the run's record back from the log, which is not the resume.
    const finished = new Promise((resolve) => loop.on('RunFinished', resolve));
    loop.send({ type: 'user.message', content: 'again' });
    await expect(finished).resolves.toMatchObject({ outcome: 'completed' });
    expect(parsed).toHaveBeenCalledTimes(events);
    expect(loop.session.items).toHaveLength(50 * 2 + 2);
    loop.stop();
    await store.close();
  });

  it('reads only the lines after a batch it wrote when asked from a seq past it (runTurn)', async () => {
    const events = await writeSession(directory, 'turns', 50);
    const store = new FileSessionStore({ directory });
    const loop = await openAgentLoop({
      model: new ScriptedModel({ tokens, turns: [{ text: 'one' }, { text: 'two' }] }),
      tokens,
      store,
      sessionId: 'turns',
    });
    loop.start();
    await runTurn(loop, 'first');
    const parsed = vi.spyOn(SessionLogParser.prototype, 'pushLine');
    const before = loop.session.lastSeq;
    const result = await runTurn(loop, 'second');
    expect(result).toMatchObject({ outcome: 'completed', text: 'two' });
    // The turn's record came from its own lines, not from a read of the whole log.
    expect(parsed.mock.calls.length).toBeLessThanOrEqual(loop.session.lastSeq - before);
    expect(loop.session.lastSeq).toBeGreaterThan(events);
    // A read from the top still reads and checks every line.
    parsed.mockClear();
    expect(await collect(store.read('turns'))).toHaveLength(loop.session.lastSeq);
    expect(parsed).toHaveBeenCalledTimes(loop.session.lastSeq);
    loop.stop();
    await store.close();
  });

  it('still cuts a torn last line when the writer reuses the read', async () => {
    const events = await writeSession(directory, 'torn', 3);
    const path = join(directory, 'torn.jsonl');
    await appendFile(path, '{"v":1,"seq":');
    const recoveries: TornLineRecovery[] = [];
    const parsed = vi.spyOn(SessionLogParser.prototype, 'pushLine');
    const store = new FileSessionStore({
      directory,
      onRecovery: (entry) => recoveries.push(entry),
    });
    expect(await collect(store.read('torn'))).toHaveLength(events);
    await expect(store.openSession('torn')).resolves.toEqual({ lastSeq: events });
    expect(parsed).toHaveBeenCalledTimes(events);
    expect(recoveries).toMatchObject([{ sessionId: 'torn', lineNumber: events + 1, bytes: 13 }]);
    await store.append('torn', [itemsAppended([user('after', 'after the cut')])]);
    await store.close();
    expect((await readFile(path, 'utf8')).split('\n').at(-2)).toContain('after the cut');
  });

  it('reads the file again when it changed after the read, and still refuses a damaged line', async () => {
    const events = await writeSession(directory, 'changed', 2);
    const path = join(directory, 'changed.jsonl');
    const store = new FileSessionStore({ directory });
    expect(await collect(store.read('changed'))).toHaveLength(events);
    // Another writer appended after the read: the writer must see its event.
    const other = new FileSessionStore({ directory });
    await other.append('changed', [itemsAppended([user('other', 'from elsewhere')])]);
    await other.close();
    await expect(store.openSession('changed')).resolves.toEqual({ lastSeq: events + 1 });
    await store.close();

    const damaged = new FileSessionStore({ directory });
    expect(await collect(damaged.read('changed'))).toHaveLength(events + 1);
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.replace('question 0', 'question 9'));
    await expect(damaged.openSession('changed')).rejects.toMatchObject({ code: 'corrupt_log' });
    await damaged.close();
  });
});
