import { createAgentLoop, defineTool, openAIChatModel, runTurn } from 'loopkeeper';
import type { ToolCallDelta } from 'loopkeeper/runtime';
import { describe, expect, it } from 'vitest';
import { fakeServerPerTest, recordTelemetry, sharedTokenCounter } from '../support/loop-harness.js';

const startServer = fakeServerPerTest();

const fetchPages = defineTool({
  name: 'fetch_pages',
  description: 'Fetches pages, reporting each one.',
  parameters: { type: 'object', properties: { pages: { type: 'integer' } }, required: ['pages'] },
  execute: ({ pages }: { pages: number }, { reportProgress }) => {
    for (let page = 1; page <= pages; page += 1) reportProgress({ page, of: pages });
    return `${pages} pages`;
  },
});

describe('streaming telemetry of a loop', () => {
  it('emits ReasoningDelta, ToolCallDelta and ToolCallProgress events that match what the log keeps', async () => {
    const server = await startServer({
      replies: [
        {
          reasoning: 'Fetch both sites at once.',
          toolCalls: [
            { id: 'call_a', name: 'fetch_pages', arguments: { pages: 2 } },
            { id: 'call_b', name: 'fetch_pages', arguments: { pages: 3 } },
          ],
          chunkSize: 3,
          interleaveToolCalls: true,
        },
        { text: 'Five pages in all.', chunkSize: 4 },
      ],
    });
    const loop = createAgentLoop({
      model: openAIChatModel({
        baseURL: server.url,
        apiKey: 'test-key',
        model: 'gpt-test',
        stream: true,
      }),
      tools: [fetchPages],
      tokens: await sharedTokenCounter(),
    });
    const telemetry = recordTelemetry(loop);
    loop.start();
    const result = await runTurn(loop, 'Fetch both sites.');
    loop.stop();

    expect(result.outcome).toBe('completed');
    const reasoning = telemetry.flatMap((event) =>
      event.type === 'ReasoningDelta' ? [event] : [],
    );
    expect(reasoning.length).toBeGreaterThan(1);
    expect(reasoning.every((event) => event.step === 1 && event.runId === result.runId)).toBe(true);
    expect(reasoning.map((event) => event.delta).join('')).toBe('Fetch both sites at once.');

    const callDeltas = telemetry.filter(
      (event): event is ToolCallDelta => event.type === 'ToolCallDelta',
    );
    const assistant = loop.session.items.find((item) => item.kind === 'assistant');
    const logged = assistant?.kind === 'assistant' ? (assistant.toolCalls ?? []) : [];
    expect(logged.map((call) => call.id)).toEqual(['call_a', 'call_b']);
    for (const [index, call] of logged.entries()) {
      const own = callDeltas.filter((event) => event.index === index);
      expect(own.every((event) => event.callId === call.id && event.toolName === call.name)).toBe(
        true,
      );
      expect(own.map((event) => event.delta).join('')).toBe(call.arguments);
    }
    // Every delta of the first step comes before its InferenceFinished.
    const firstFinished = telemetry.findIndex((event) => event.type === 'InferenceFinished');
    expect(telemetry.findLastIndex((event) => event.type === 'ToolCallDelta')).toBeLessThan(
      firstFinished,
    );

    const progress = telemetry.flatMap((event) =>
      event.type === 'ToolCallProgress' ? [event] : [],
    );
    expect(progress.map(({ callId, toolName, data }) => ({ callId, toolName, data }))).toEqual(
      expect.arrayContaining([
        { callId: 'call_a', toolName: 'fetch_pages', data: { page: 1, of: 2 } },
        { callId: 'call_a', toolName: 'fetch_pages', data: { page: 2, of: 2 } },
        { callId: 'call_b', toolName: 'fetch_pages', data: { page: 3, of: 3 } },
      ]),
    );
    expect(progress).toHaveLength(5);
    for (const event of progress) {
      const started = telemetry.findIndex(
        (other) => other.type === 'ToolCallStarted' && other.callId === event.callId,
      );
      const finished = telemetry.findIndex(
        (other) => other.type === 'ToolCallFinished' && other.callId === event.callId,
      );
      expect(telemetry.indexOf(event)).toBeGreaterThan(started);
      expect(telemetry.indexOf(event)).toBeLessThan(finished);
    }
  });
});
