import { createAgentLoop, MemorySessionStore, openAgentLoop, runTurn } from 'loopkeeper';
import { type FakeRequest, fakeFaults } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { fakeServerModel, fakeServerPerTest } from '../support/fake-server.js';
import { readSession, sharedTokenCounter } from '../support/loop-harness.js';

let tokens: TokenCounter;
const server = fakeServerPerTest();
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

/** What OpenAI refuses: an assistant message with neither content nor tool calls. */
function emptyAssistantMessages(request: FakeRequest): number {
  return (request.body?.messages ?? []).filter((message) => {
    if (message.role !== 'assistant') return false;
    const content = message.content;
    const hasText = typeof content === 'string' ? content !== '' : (content?.length ?? 0) > 0;
    return !hasText && (message.tool_calls?.length ?? 0) === 0;
  }).length;
}

/** Answers like OpenAI: a 400 for a request carrying an empty assistant message. */
function strictHandler(request: FakeRequest) {
  return emptyAssistantMessages(request) > 0
    ? fakeFaults.httpError({
        status: 400,
        message: "Invalid value for 'content': expected a string, got null.",
      })
    : { text: 'A real answer.' };
}

function model(stream: boolean) {
  return fakeServerModel(server(), { maxRetries: 0, stream });
}

describe('createAgentLoop with an empty model answer', () => {
  for (const [finishReason, stream] of [
    ['length', false],
    ['content_filter', false],
    ['length', true],
  ] as const) {
    it(`fails the run with model_empty_answer on finish_reason ${finishReason}${stream ? ' (streamed)' : ''} and the session goes on`, async () => {
      const store = new MemorySessionStore();
      const sessionId = `empty-${finishReason}-${stream}`;
      server().enqueue({ text: '', finishReason });
      server().setHandler(strictHandler);
      const loop = createAgentLoop({ model: model(stream), store, sessionId, tokens });
      loop.start();

      const empty = await runTurn(loop, 'Write a very long essay.');
      expect(empty).toMatchObject({
        outcome: 'failed',
        error: { name: 'ModelError', code: 'model_empty_answer' },
      });
      expect(empty.error?.message).toContain(`finish_reason: ${finishReason}`);
      const events = await readSession(store, sessionId);
      expect(events.at(-1)).toMatchObject({
        type: 'run-finished',
        outcome: 'failed',
        error: { code: 'model_empty_answer' },
      });
      expect(
        events.some(
          (event) =>
            event.type === 'items-appended' &&
            event.items.some((item) => item.kind === 'assistant'),
        ),
      ).toBe(false);

      expect((await runTurn(loop, 'Then a short one.')).outcome).toBe('completed');
      const reopened = await openAgentLoop({ model: model(stream), store, sessionId, tokens });
      reopened.start();
      expect((await runTurn(reopened, 'And after reopening?')).outcome).toBe('completed');
      expect(server().requests.map(emptyAssistantMessages)).toEqual([0, 0, 0]);
    });
  }

  it('never sends an empty assistant item an older log already holds, also after reopening', async () => {
    const store = new MemorySessionStore();
    const sessionId = 'poisoned';
    // What the loop logged before the fix: an answer with no text and no tool calls.
    await store.append(sessionId, [
      { type: 'run-started', runId: 'r1' },
      { type: 'items-appended', runId: 'r1', items: [{ kind: 'user', id: 'u1', content: 'Hi' }] },
      { type: 'items-appended', runId: 'r1', items: [{ kind: 'assistant', id: 'a1' }] },
      { type: 'run-finished', runId: 'r1', outcome: 'completed', steps: 1 },
    ]);
    server().setHandler(strictHandler);
    const loop = await openAgentLoop({ model: model(false), store, sessionId, tokens });
    loop.start();
    expect((await runTurn(loop, 'Are you there?')).outcome).toBe('completed');
    expect((await runTurn(loop, 'Still there?')).outcome).toBe('completed');
    expect(server().requests.map(emptyAssistantMessages)).toEqual([0, 0]);
    expect(server().requests[0]?.body?.messages?.map((message) => message.role)).toEqual([
      'user',
      'user',
    ]);
  });
});
