import {
  createAgentLoop,
  createAgentLoopLogic,
  createCompactor,
  createTelemetryHub,
  defineTool,
  extractiveSummarizer,
  runTurn,
  tokenBudgetTrigger,
} from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createActor, createMachine } from 'xstate';
import type { TelemetryEvent } from '../../src/events/telemetry-events.js';
import { forward } from '../../src/runtime/actors/loop-actor-context.js';
import { recordTelemetry, sharedTokenCounter } from '../support/loop-harness.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

const fetchPage = defineTool({
  name: 'fetch_page',
  description: 'Returns a long page.',
  parameters: { type: 'object' },
  execute: () => 'page text '.repeat(400),
});

function scriptedRun() {
  const model = new ScriptedModel({
    tokens,
    streamDeltas: false,
    turns: [
      { toolCalls: [{ id: 'call_1', name: 'fetch_page', arguments: {} }] },
      { toolCalls: [{ id: 'call_2', name: 'fetch_page', arguments: {} }] },
      { text: 'Both pages read.' },
    ],
  });
  // The first page fits; the second pushes the transcript over 1,000 tokens, so one compaction
  // prunes the first page's output (the unread second one is protected).
  const compactor = createCompactor({
    trigger: tokenBudgetTrigger({ maxTokens: 1_000, targetRatio: 0.9 }),
    backend: extractiveSummarizer(),
    structural: { pruneToolResults: { protectRecentTokens: 0, minSavingsTokens: 10 } },
  });
  return createAgentLoop({ model, tools: [fetchPage], compactor, tokens });
}

describe('telemetry', () => {
  it('emits the exact sequence of events for a scripted run with one compaction', async () => {
    const loop = scriptedRun();
    const events = recordTelemetry(loop);
    loop.start();
    const finished = await runTurn(loop, 'Read two pages.');
    expect(finished.outcome).toBe('completed');
    expect(events.map((event) => event.type)).toEqual([
      'RunStarted',
      'InferenceStarted',
      'InferenceFinished',
      'ToolCallStarted',
      'ToolCallFinished',
      'InferenceStarted',
      'InferenceFinished',
      'ToolCallStarted',
      'ToolCallFinished',
      'CompactionStarted',
      'MutationStarted',
      'MutationFinished',
      'CompactionFinished',
      'InferenceStarted',
      'InferenceFinished',
      'RunFinished',
    ]);
    const runId = events[0]?.runId;
    expect(
      events.every((event) => event.sessionId === loop.session.sessionId && event.runId === runId),
    ).toBe(true);
    expect(events.every((event) => typeof event.at === 'number')).toBe(true);
    const compaction = events.find((event) => event.type === 'CompactionFinished');
    expect(compaction).toMatchObject({ tier: 'structural', effective: true, reason: 'threshold' });
    if (compaction?.type === 'CompactionFinished')
      expect(compaction.tokensAfter).toBeLessThan(compaction.tokensBefore);
    loop.stop();
  });

  it('names the model asked for and the one that answered, the finish reason and each tool output length', async () => {
    const loop = scriptedRun();
    const events = recordTelemetry(loop);
    loop.start();
    await runTurn(loop, 'Read two pages.');
    const started = events.filter((event) => event.type === 'InferenceStarted');
    expect(started.map((event) => event.model)).toEqual([
      'scripted-model',
      'scripted-model',
      'scripted-model',
    ]);
    const finished = events.filter((event) => event.type === 'InferenceFinished');
    expect(finished.map((event) => [event.model, event.finishReason])).toEqual([
      ['scripted-model', 'tool_calls'],
      ['scripted-model', 'tool_calls'],
      ['scripted-model', 'stop'],
    ]);
    const tools = events.filter((event) => event.type === 'ToolCallFinished');
    expect(tools.map((event) => event.outputLength)).toEqual([4000, 4000]);
    loop.stop();
  });

  it('keeps the run undisturbed when a hub listener throws', async () => {
    const reference = scriptedRun();
    const referenceEvents = recordTelemetry(reference);
    reference.start();
    await runTurn(reference, 'Read two pages.');
    reference.stop();

    const onListenerError = vi.fn();
    const hub = createTelemetryHub({ onListenerError });
    const loop = scriptedRun();
    hub.attach(loop);
    hub.on('InferenceFinished', () => {
      throw new Error('listener bug');
    });
    const seen: string[] = [];
    hub.on('*', (event) => seen.push(event.type));
    loop.start();
    const finished = await runTurn(loop, 'Read two pages.');
    expect(finished.outcome).toBe('completed');
    expect(seen).toEqual(referenceEvents.map((event) => event.type));
    expect(onListenerError).toHaveBeenCalledTimes(3);
    expect(loop.session.items.map((item) => item.kind)).toEqual(
      reference.session.items.map((item) => item.kind),
    );
    loop.stop();
  });

  it("hands an invoked actor's event to the loop's listeners through the loop's services, with no macrostep", async () => {
    const event: TelemetryEvent = {
      type: 'ToolCallStarted',
      sessionId: 's1',
      runId: 'run-1',
      at: 0,
      callId: 'call_1',
      toolName: 'clock',
    };
    const agent = createAgentLoopLogic({ model: new ScriptedModel({ turns: [] }) });
    const loop = createActor(agent.logic, { input: agent.input });
    const heard: unknown[] = [];
    loop.on('ToolCallStarted', (value) => heard.push(value));
    loop.start();
    const macrosteps: string[] = [];
    loop.subscribe(() => macrosteps.push('step'));
    forward(loop, event);
    expect(heard).toEqual([event]);
    expect(macrosteps).toEqual([]);
    loop.stop();
    // The services serve the actor they were created for, and no other.
    const second = createActor(agent.logic, { input: agent.input }).getSnapshot();
    expect(second.status).toBe('error');
    expect(String(second.error)).toMatch(/already serve another actor/);
    const foreign = createActor(createMachine({}));
    expect(() => forward(foreign, event)).toThrow(/outside a loop made by createAgentLoop/);
  });

  it('reports an upper bound, marked as one, while a loop with nothing to decide on counts loads no encoding', async () => {
    const answer = 'An answer with ünïcode and 👋.';
    const model = new ScriptedModel({
      streamDeltas: false,
      turns: [{ text: answer }, { text: answer }],
    });
    const loop = createAgentLoop({ model });
    const events = recordTelemetry(loop);
    loop.start();
    expect((await runTurn(loop, 'A short question, with ✓.')).outcome).toBe('completed');
    expect((await runTurn(loop, 'Another one.')).outcome).toBe('completed');
    const started = events.filter((event) => event.type === 'InferenceStarted');
    expect(started).toHaveLength(2);
    // Each bound is at least the exact count of the history the request was built from.
    const histories = [loop.session.items.slice(0, 1), loop.session.items.slice(0, 3)];
    for (const [index, event] of started.entries()) {
      expect(event.estimateIsBound).toBe(true);
      expect(event.estimatedPromptTokens).toBeGreaterThanOrEqual(
        tokens.count(histories[index] ?? []),
      );
    }
    // The log keeps exact estimates only: the usage it records carries none.
    const usage = [];
    for await (const event of loop.session.store.read(loop.session.sessionId)) {
      if (event.type === 'usage-reported') usage.push(event);
    }
    expect(usage).toHaveLength(2);
    expect(usage.every((event) => event.estimatedPromptTokens === undefined)).toBe(true);
    loop.stop();
  });

  it('reports the exact count, unmarked, when a compactor decides on counts', async () => {
    const loop = scriptedRun();
    const events = recordTelemetry(loop);
    loop.start();
    await runTurn(loop, 'Read two pages.');
    const started = events.filter((event) => event.type === 'InferenceStarted');
    expect(started.every((event) => event.estimateIsBound === undefined)).toBe(true);
    expect(started[0]?.estimatedPromptTokens).toBe(tokens.count(loop.session.items.slice(0, 1)));
    loop.stop();
  });
});
