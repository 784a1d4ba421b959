import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createAgentLoop,
  defineTool,
  effectiveHistory,
  FileSessionStore,
  openAgentLoop,
  runTurn,
} from 'loopkeeper';
import { toolOutputLimit } from 'loopkeeper/compaction';
import { type FakeRequest, fakeFaults } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeServerModel, fakeServerPerTest } from '../support/fake-server.js';
import { readSession, sharedTokenCounter } from '../support/loop-harness.js';

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

let tokens: TokenCounter;
const server = fakeServerPerTest();
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'loopkeeper-surrogates-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** Whether any string inside `value` holds a lone surrogate. */
function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return LONE.test(value);
  if (typeof value !== 'object' || value === null) return false;
  return Object.values(value).some(hasLoneSurrogate);
}

/** Answers like a strict provider: a 400 for any request whose text is not valid Unicode. */
function strictHandler(answer: () => object) {
  return (request: FakeRequest) =>
    hasLoneSurrogate(request.body?.messages)
      ? fakeFaults.httpError({ status: 400, message: 'Invalid Unicode in request body.' })
      : answer();
}

const emojiTool = defineTool({
  name: 'read_notes',
  description: 'Returns notes.',
  parameters: { type: 'object' },
  // An odd-length prefix, so a UTF-16 cut in the middle falls inside a pair; then a lone half.
  execute: () => `a${'😀'.repeat(600)}\nbroken: \uD83D end`,
});

describe('lone surrogates never reach the log or a model', () => {
  it('replaces them in user and tool text with U+FFFD, and clipping keeps pairs whole (2 sessions, reopened)', async () => {
    let replies = 0;
    server().setHandler(
      strictHandler(() => {
        replies += 1;
        return replies % 2 === 1
          ? { toolCalls: [{ name: 'read_notes', arguments: {} }] }
          : { text: 'Read them.' };
      }),
    );
    const store = new FileSessionStore({ directory });
    const loop = createAgentLoop({
      model: fakeServerModel(server(), { maxRetries: 0 }),
      tools: [emojiTool],
      mutators: [toolOutputLimit({ maxTokens: 100 })],
      store,
      sessionId: 's',
      tokens,
    });
    loop.start();
    const first = await runTurn(loop, 'Notes please \uDE00 (a lone low half).');
    expect(first.outcome).toBe('completed');
    loop.stop();
    await store.close();

    const reopenedStore = new FileSessionStore({ directory });
    const reopened = await openAgentLoop({
      model: fakeServerModel(server(), { maxRetries: 0 }),
      tools: [emojiTool],
      mutators: [toolOutputLimit({ maxTokens: 100 })],
      store: reopenedStore,
      sessionId: 's',
      tokens,
    });
    reopened.start();
    const second = await runTurn(reopened, 'Again \uD83D please.');
    expect(second.outcome).toBe('completed');
    reopened.stop();

    const events = await readSession(reopenedStore, 's');
    await reopenedStore.close();
    expect(hasLoneSurrogate(events)).toBe(false);
    expect(
      effectiveHistory(events).some(
        (item) =>
          item.kind === 'user' &&
          typeof item.content === 'string' &&
          item.content.includes('\uFFFD'),
      ),
    ).toBe(true);
    expect(server().requests).toHaveLength(4);
    for (const request of server().requests) {
      expect(hasLoneSurrogate(request.body?.messages)).toBe(false);
    }
  });
});
