import {
  type AgentLoopActor,
  createAgentLoop,
  defineTool,
  LoopNotRunningError,
  ModelError,
  openAIChatModel,
  runTurn,
} from 'loopkeeper';
import { streamTurn, type TurnStreamPart } from 'loopkeeper/runtime';
import { ScriptedModel } from 'loopkeeper/testing';
import { describe, expect, it } from 'vitest';
import {
  fakeServerPerTest,
  nextEvent,
  readSession,
  recordTelemetry,
  sharedTokenCounter,
  whenIdle,
} from '../support/loop-harness.js';

const startServer = fakeServerPerTest();

/**
 * Listeners and snapshot observers on the actor, read from XState's own bookkeeping, so a
 * listener left behind by any path shows up. Throws when XState's fields change rather than
 * count nothing.
 */
function listenerCount(loop: AgentLoopActor): number {
  const actor = loop as unknown as {
    readonly eventListeners?: unknown;
    readonly observers?: unknown;
  };
  if (!(actor.eventListeners instanceof Map) || !(actor.observers instanceof Set)) {
    throw new Error('XState keeps its listeners elsewhere now: update listenerCount');
  }
  let count = actor.observers.size;
  for (const listeners of (actor.eventListeners as Map<string, Set<unknown>>).values()) {
    count += listeners.size;
  }
  return count;
}

async function collect(stream: AsyncIterable<TurnStreamPart>): Promise<TurnStreamPart[]> {
  const parts: TurnStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

const countPages = defineTool({
  name: 'count_pages',
  description: 'Counts pages, reporting each.',
  parameters: { type: 'object', properties: { pages: { type: 'integer' } }, required: ['pages'] },
  execute: ({ pages }: { pages: number }, { reportProgress }) => {
    for (let page = 1; page <= pages; page += 1) reportProgress({ page });
    return `${pages} pages`;
  },
});

const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys a service.',
  parameters: { type: 'object', properties: { service: { type: 'string' } } },
  needsApproval: true,
  execute: () => 'deployed',
});

function toolTurns() {
  return [
    { toolCalls: [{ id: 'call_pages', name: 'count_pages', arguments: { pages: 2 } }] },
    { text: 'The book has two pages.' },
  ];
}

describe('streamTurn', () => {
  it('yields the run as it happens and ends with the result runTurn gives for the same script', async () => {
    const loop = createAgentLoop({
      model: new ScriptedModel({ turns: toolTurns() }),
      tokens: await sharedTokenCounter(),
      tools: [countPages],
    });
    loop.start();
    const before = listenerCount(loop);
    const stream = streamTurn(loop, 'How many pages?');
    const parts = await collect(stream);

    expect(parts.map((part) => part.type)).toEqual([
      'step_started',
      'tool_call_delta',
      'tool_call_delta',
      'step_finished',
      'tool_call_started',
      'tool_progress',
      'tool_progress',
      'tool_call_finished',
      'step_started',
      ...Array(5).fill('text_delta'),
      'step_finished',
      'finish',
    ]);
    expect(parts.every((part) => part.type === 'finish' || part.runId === stream.runId)).toBe(true);
    expect(parts.find((part) => part.type === 'tool_progress')).toMatchObject({
      callId: 'call_pages',
      toolName: 'count_pages',
      data: { page: 1 },
    });
    const text = parts.flatMap((part) => (part.type === 'text_delta' ? [part.delta] : []));
    const finish = parts.at(-1);
    if (finish?.type !== 'finish') throw new Error('the stream did not end with finish');
    expect(finish.result).toMatchObject({
      type: 'RunFinished',
      runId: stream.runId,
      outcome: 'completed',
      steps: 2,
      text: text.join(''),
      pending: [],
    });
    expect(listenerCount(loop)).toBe(before);

    // The same script through runTurn gives the same result, up to ids and times.
    const twin = createAgentLoop({
      model: new ScriptedModel({ turns: toolTurns() }),
      tokens: await sharedTokenCounter(),
      tools: [countPages],
    });
    twin.start();
    const expected = await runTurn(twin, 'How many pages?');
    const comparable = (result: typeof expected) => ({
      type: result.type,
      outcome: result.outcome,
      steps: result.steps,
      error: result.error,
      text: result.text,
      usage: result.usage,
      kinds: result.itemsAdded.map((item) => item.kind),
      pending: result.pending,
    });
    expect(comparable(finish.result)).toEqual(comparable(expected));
    loop.stop();
    twin.stop();
  });

  it('ends with the aborted result when the loop is aborted mid-stream over HTTP, and leaves no listener', async () => {
    const answer = 'word '.repeat(60);
    const server = await startServer({
      replies: [{ text: answer, chunkSize: 5, chunkDelayMs: 20 }],
    });
    const loop = createAgentLoop({
      model: openAIChatModel({
        baseURL: server.url,
        apiKey: 'test-key',
        model: 'gpt-test',
        stream: true,
      }),
      tokens: await sharedTokenCounter(),
    });
    loop.start();
    const before = listenerCount(loop);
    const deltas: string[] = [];
    let last: TurnStreamPart | undefined;
    for await (const part of streamTurn(loop, 'Talk for a while.')) {
      last = part;
      if (part.type !== 'text_delta') continue;
      deltas.push(part.delta);
      if (deltas.length === 2) loop.send({ type: 'abort' });
    }

    expect(last?.type).toBe('finish');
    if (last?.type !== 'finish') return;
    expect(last.result).toMatchObject({
      outcome: 'aborted',
      error: { name: 'AbortedError' },
      pending: [],
    });
    // The stream was cut: the abort reached the SDK's request, not just the iterator.
    expect(deltas.join('').length).toBeLessThan(answer.length);
    expect(server.requests).toHaveLength(1);
    expect(loop.session.items.map((item) => item.kind)).toEqual(['user']);
    const logged = await readSession(loop.session.store, loop.session.sessionId);
    expect(logged.at(-1)).toMatchObject({ type: 'run-finished', outcome: 'aborted' });
    expect(listenerCount(loop)).toBe(before);
    loop.stop();
  });

  it('removes its listeners when the consumer breaks out early, and the run goes on to its end', async () => {
    const loop = createAgentLoop({
      model: new ScriptedModel({ turns: toolTurns() }),
      tokens: await sharedTokenCounter(),
      tools: [countPages],
    });
    const telemetry = recordTelemetry(loop);
    loop.start();
    const before = listenerCount(loop);
    const stream = streamTurn(loop, 'How many pages?');
    const finished = nextEvent(loop, 'RunFinished');
    for await (const part of stream) {
      expect(part.type).toBe('step_started');
      break;
    }
    // The break returned the stream: its own listener and the result's watchers are gone.
    expect(listenerCount(loop)).toBe(before + 1);
    expect(await stream.next()).toEqual({ done: true, value: undefined });

    expect(await finished).toMatchObject({ runId: stream.runId, outcome: 'completed' });
    await whenIdle(loop);
    expect(loop.session.items.at(-1)).toMatchObject({
      kind: 'assistant',
      text: 'The book has two pages.',
    });
    expect(telemetry.filter((event) => event.type === 'ToolCallProgress')).toHaveLength(2);
    expect(listenerCount(loop)).toBe(before);
    loop.stop();
  });

  it('ends with the paused result when the run waits for approval', async () => {
    const loop = createAgentLoop({
      model: new ScriptedModel({
        turns: [
          { toolCalls: [{ id: 'call_deploy', name: 'deploy', arguments: { service: 'api' } }] },
        ],
      }),
      tools: [deploy],
      tokens: await sharedTokenCounter(),
    });
    loop.start();
    const before = listenerCount(loop);
    const parts = await collect(streamTurn(loop, 'Deploy the api.'));

    expect(parts.map((part) => part.type).slice(-2)).toEqual(['approval_requested', 'finish']);
    const finish = parts.at(-1);
    if (finish?.type !== 'finish') throw new Error('the stream did not end with finish');
    expect(finish.result).toMatchObject({
      type: 'RunPaused',
      outcome: 'awaiting_approval',
      pending: [{ callId: 'call_deploy', toolName: 'deploy' }],
    });
    expect(parts.some((part) => part.type === 'tool_call_started')).toBe(false);
    expect(listenerCount(loop)).toBe(before);
    loop.stop();
  });

  it('keeps every part for a consumer that reads only after the run is over', async () => {
    const text = Array.from({ length: 400 }, (_, index) => `w${index} `).join('');
    const loop = createAgentLoop({
      model: new ScriptedModel({ turns: [{ text }] }),
      tokens: await sharedTokenCounter(),
    });
    const telemetry = recordTelemetry(loop);
    loop.start();
    const stream = streamTurn(loop, 'Say a lot.');
    await nextEvent(loop, 'RunFinished');
    await whenIdle(loop);

    const parts = await collect(stream);
    const deltas = parts.flatMap((part) => (part.type === 'text_delta' ? [part.delta] : []));
    expect(deltas).toHaveLength(400);
    expect(deltas).toEqual(
      telemetry.flatMap((event) => (event.type === 'InferenceDelta' ? [event.delta] : [])),
    );
    expect(parts.at(-1)?.type).toBe('finish');
    loop.stop();
  });

  it('ends a failed run with its result, as runTurn resolves it, not with a throw', async () => {
    const loop = createAgentLoop({
      model: new ScriptedModel({
        turns: [{ error: new ModelError('bad key', { kind: 'auth', status: 401 }) }],
      }),
      tokens: await sharedTokenCounter(),
    });
    loop.start();
    const parts = await collect(streamTurn(loop, 'Hello?'));
    expect(parts.map((part) => part.type)).toEqual(['step_started', 'step_failed', 'finish']);
    expect(parts.at(-1)).toMatchObject({
      type: 'finish',
      result: { outcome: 'failed', error: { name: 'ModelError', code: 'model_auth' } },
    });
    loop.stop();
  });

  it('throws LoopNotRunningError as runTurn rejects: before any part for a loop not started, after the parts so far for a loop stopped mid-run', async () => {
    const idle = createAgentLoop({ model: new ScriptedModel({ turns: [{ text: 'never' }] }) });
    const notStarted = streamTurn(idle, 'Hello?');
    await expect(notStarted.next()).rejects.toBeInstanceOf(LoopNotRunningError);
    expect(await notStarted.next()).toEqual({ done: true, value: undefined });
    expect(listenerCount(idle)).toBe(0);

    const loop = createAgentLoop({
      model: new ScriptedModel({ turns: [{ text: 'slow', delayMs: Number.POSITIVE_INFINITY }] }),
    });
    loop.start();
    const stream = streamTurn(loop, 'Hello?');
    const first = await stream.next();
    expect(first.value?.type).toBe('step_started');
    loop.stop();
    await expect(stream.next()).rejects.toBeInstanceOf(LoopNotRunningError);
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });
});
