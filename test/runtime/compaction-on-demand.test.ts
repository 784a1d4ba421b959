import {
  createAgentLoop,
  createCompactor,
  defineTool,
  extractiveSummarizer,
  MemorySessionStore,
  openAIChatModel,
  runTurn,
  tokenBudgetTrigger,
} from 'loopkeeper';
import type { AfterCompactionEvent, BeforeCompactionEvent } from 'loopkeeper/compaction';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  fakeServerPerTest,
  readSession,
  recordTelemetry,
  sharedTokenCounter,
  whenIdle,
} from '../support/loop-harness.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});
const startServer = fakeServerPerTest();

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a booking up.',
  parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  execute: ({ id }: { id: string }) =>
    `Booking ${id}: 2 passengers, ${'seat row data '.repeat(400)}`,
});

/** A model that looks a booking up, then answers, turn after turn. */
async function serverWithTurns() {
  let call = 0;
  return startServer({
    handler: (request) => {
      const messages = (request.body?.messages ?? []) as { role: string }[];
      if (messages.at(-1)?.role === 'user') {
        call += 1;
        return {
          toolCalls: [{ id: `call_${call}`, name: 'lookup', arguments: { id: `BK${call}X7` } }],
        };
      }
      // An answer with some prose, so a summary of the older turns is smaller than they are
      // even once the structural tier has pruned their tool outputs.
      return {
        text: `Found it. ${'The booking has two passengers and a window seat. '.repeat(20)}`,
      };
    },
  });
}

/** A trigger that never fires: only the host's `compact` compacts. */
const neverTrigger = tokenBudgetTrigger({ maxTokens: 1_000_000 });

describe("loop.send({type: 'compact'})", () => {
  it('compacts now, between runs, through the hooks: beforeCompaction adds instructions, afterCompaction sees what was dropped and kept', async () => {
    const server = await serverWithTurns();
    const before: BeforeCompactionEvent[] = [];
    const after: AfterCompactionEvent[] = [];
    const store = new MemorySessionStore();
    const loop = createAgentLoop({
      model: openAIChatModel({ baseURL: server.url, apiKey: 'test-key', model: 'gpt-test' }),
      tools: [lookup],
      store,
      tokens,
      compactor: createCompactor({
        trigger: neverTrigger,
        backend: extractiveSummarizer(),
        beforeCompaction: (event) => {
          before.push(event);
          return { instructions: 'Keep every booking id.' };
        },
        afterCompaction: (event) => {
          after.push(event);
        },
      }),
    });
    const telemetry = recordTelemetry(loop);
    loop.start();
    for (const text of [
      'Find my booking.',
      'And the second one.',
      'And a third.',
      'And a fourth.',
    ]) {
      expect((await runTurn(loop, text)).outcome).toBe('completed');
    }
    // Nothing compacted on its own: the trigger never fires.
    expect(before).toHaveLength(0);
    const itemsBefore = loop.session.items;

    loop.send({ type: 'compact', instructions: 'Keep the passenger counts.' });
    await whenIdle(loop);

    expect(before).toHaveLength(1);
    expect(before[0]).toMatchObject({
      reason: 'manual',
      instructions: 'Keep the passenger counts.',
    });
    expect(after).toHaveLength(1);
    const seen = after[0];
    expect(seen?.reason).toBe('manual');
    expect(seen?.instructions).toBe('Keep the passenger counts.\nKeep every booking id.');
    expect(seen?.before).toEqual(itemsBefore);
    expect(seen?.after).toEqual(loop.session.items);
    expect(seen?.dropped.length).toBeGreaterThan(0);
    expect((seen?.dropped.length ?? 0) + (seen?.kept.length ?? 0)).toBe(itemsBefore.length);
    expect(seen?.added.some((item) => item.kind === 'context')).toBe(true);

    // One marker, between runs (no run id), with the manual reason.
    const events = await readSession(store, loop.session.sessionId);
    const markers = events.filter((event) => event.type === 'transcript-replaced');
    expect(markers).toHaveLength(1);
    expect(markers[0]).toMatchObject({ reason: 'manual' });
    expect(markers[0]?.runId).toBeUndefined();
    expect(
      telemetry
        .filter(
          (event) => event.type === 'CompactionStarted' || event.type === 'CompactionFinished',
        )
        .map((event) => [event.type, event.reason]),
    ).toEqual([
      ['CompactionStarted', 'manual'],
      ['CompactionFinished', 'manual'],
    ]);

    // The next request carries the summary, with the instructions it was given and the ids.
    expect((await runTurn(loop, 'Thanks.')).outcome).toBe('completed');
    const summary = JSON.stringify(server.requests.at(-2)?.body);
    expect(summary).toContain('Reference record of earlier conversation');
    expect(summary).toContain('Keep the passenger counts. Keep every booking id.');
    for (const id of ['BK1X7', 'BK2X7', 'BK3X7', 'BK4X7']) expect(summary).toContain(id);
    loop.stop();
  });

  it('beforeCompaction can skip: nothing is logged and afterCompaction is not called', async () => {
    const server = await serverWithTurns();
    const store = new MemorySessionStore();
    let afterCalls = 0;
    const loop = createAgentLoop({
      model: openAIChatModel({ baseURL: server.url, apiKey: 'test-key', model: 'gpt-test' }),
      tools: [lookup],
      store,
      tokens,
      compactor: createCompactor({
        trigger: neverTrigger,
        backend: extractiveSummarizer(),
        beforeCompaction: () => ({ skip: true }),
        afterCompaction: () => {
          afterCalls += 1;
        },
      }),
    });
    loop.start();
    expect((await runTurn(loop, 'Find my booking.')).outcome).toBe('completed');
    const itemsBefore = loop.session.items;
    loop.send({ type: 'compact' });
    await whenIdle(loop);
    expect(loop.session.items).toBe(itemsBefore);
    expect(afterCalls).toBe(0);
    const events = await readSession(store, loop.session.sessionId);
    expect(events.some((event) => event.type === 'transcript-replaced')).toBe(false);
    loop.stop();
  });

  it('sent during a run, it waits for the run to end; without a compactor it is refused as lastError and the loop goes on', async () => {
    const server = await serverWithTurns();
    const store = new MemorySessionStore();
    const loop = createAgentLoop({
      model: openAIChatModel({ baseURL: server.url, apiKey: 'test-key', model: 'gpt-test' }),
      tools: [lookup],
      store,
      tokens,
      compactor: createCompactor({ trigger: neverTrigger, backend: extractiveSummarizer() }),
    });
    loop.start();
    expect((await runTurn(loop, 'Find my booking.')).outcome).toBe('completed');
    const turn = runTurn(loop, 'And the second one.');
    loop.send({ type: 'compact' });
    expect(loop.getSnapshot().context.pendingCompaction).toEqual({ instructions: null });
    expect((await turn).outcome).toBe('completed');
    await whenIdle(loop);
    const events = await readSession(store, loop.session.sessionId);
    // Both runs finished before the marker was written.
    const finishedRuns = events.flatMap((event, index) =>
      event.type === 'run-finished' ? [index] : [],
    );
    const marker = events.findIndex((event) => event.type === 'transcript-replaced');
    expect(finishedRuns).toHaveLength(2);
    expect(marker).toBeGreaterThan(finishedRuns[1] ?? Number.POSITIVE_INFINITY);
    loop.stop();

    const bare = createAgentLoop({
      model: openAIChatModel({ baseURL: server.url, apiKey: 'test-key', model: 'gpt-test' }),
      tools: [lookup],
      tokens,
    });
    bare.start();
    bare.send({ type: 'compact' });
    await whenIdle(bare);
    expect(bare.getSnapshot().context.lastError).toMatchObject({ name: 'MutatorError' });
    expect((await runTurn(bare, 'Find my booking.')).outcome).toBe('completed');
    bare.stop();
  });
});
