import {
  AbortedError,
  agentSummarizer,
  CompactionError,
  ConfigError,
  createAgentLoop,
  createCompactor,
  defineTool,
  type Item,
  openAIChatModel,
  runTurn,
  type TelemetryEvent,
  tokenBudgetTrigger,
} from 'loopkeeper';
import { isSummaryItem } from 'loopkeeper/compaction';
import { type FakeOpenAIServer, ScriptedModel, startFakeOpenAIServer } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { recordTelemetry, sharedTokenCounter } from '../support/loop-harness.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

const sixSections = [
  '## Goal',
  '- Fix the date parsing bug in src/dates.ts.',
  '## Decisions and constraints',
  '- Keep the public API.',
  '## Progress',
  '- Read src/dates.ts: format() calls toISOString on an invalid date.',
  '## Files and artifacts',
  '- src/dates.ts',
  '## Errors seen',
  '- RangeError: Invalid time value',
  '## Next step',
  '- Write the fix.',
].join('\n');

const record: readonly Item[] = [
  { kind: 'user', id: 'u1', content: 'Please fix the date bug in src/dates.ts.' },
  { kind: 'assistant', id: 'a1', text: 'It throws RangeError: Invalid time value.' },
];

/** The summarizing agent's tool, counting its calls. */
function fileReader() {
  const paths: string[] = [];
  const tool = defineTool({
    name: 'read_file',
    description: 'Reads a file of the workspace.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    execute: async ({ path }: { path: string }) => {
      paths.push(path);
      return 'export const format = (date) => date.toISOString();';
    },
  });
  return { tool, paths };
}

/** A summarizing child: reads the file the record names, then answers with the six sections. */
function summarizingModel() {
  return new ScriptedModel({
    tokens,
    script: (request) =>
      request.transcript.at(-1)?.kind === 'toolResult'
        ? { text: sixSections }
        : { toolCalls: [{ name: 'read_file', arguments: { path: 'src/dates.ts' } }] },
  });
}

describe('agentSummarizer', () => {
  it('runs a nested agent loop that may call tools and returns its final text, as the seed AgentCompactor', async () => {
    const { tool, paths } = fileReader();
    const model = summarizingModel();
    const events: TelemetryEvent[] = [];
    const backend = agentSummarizer({
      model,
      tools: [tool],
      tokens,
      onTelemetry: (event) => events.push(event),
    });
    const result = await backend.summarize({
      transcript: record,
      previousSummary: '## Goal\n- An earlier goal about src/old.ts',
      signal: new AbortController().signal,
    });
    expect(result.text).toBe(sixSections);
    expect(result.usage?.promptTokens).toBeGreaterThan(0);
    expect(paths).toEqual(['src/dates.ts']);
    // The child got the summary prompt and the record as quoted data, as other backends do.
    const first = model.requests[0];
    expect(first?.instructions).toMatch(/untrusted data/i);
    expect(first?.instructions).toMatch(/tools you are given/);
    const message = first?.transcript[0];
    expect(message?.kind === 'user' && String(message.content)).toContain(
      '> Please fix the date bug in src/dates.ts.',
    );
    expect(message?.kind === 'user' && String(message.content)).toContain('<previous_summary>');
    expect(events.map((event) => event.type)).toContain('ToolCallFinished');
    expect(events.at(-1)).toMatchObject({ type: 'RunFinished', outcome: 'completed' });
    expect(backend.name).toBe('agent:scripted');
  });

  it('inside a loop, runs as a child of the compaction: the inspector sees it and its telemetry is nested', async () => {
    const { tool, paths } = fileReader();
    const long = (label: string) => `${label}: ${'the parser must accept ISO dates. '.repeat(60)}`;
    const parentModel = new ScriptedModel({
      tokens,
      script: (request) => {
        const last = request.transcript.at(-1);
        return { text: `Noted ${last?.kind === 'user' ? String(last.content).slice(0, 6) : ''}` };
      },
    });
    const inspected: InspectionEvent[] = [];
    const loop = createAgentLoop({
      model: parentModel,
      tokens,
      inspect: (event) => inspected.push(event),
      compactor: createCompactor({
        trigger: tokenBudgetTrigger({ maxTokens: 700 }),
        backend: agentSummarizer({ model: summarizingModel(), tools: [tool], tokens }),
        summary: { keepRecentTokens: 50 },
      }),
    });
    const telemetry = recordTelemetry(loop);
    loop.start();
    await runTurn(loop, long('one'));
    await runTurn(loop, long('two'));
    const third = await runTurn(loop, long('three'));
    loop.stop();

    expect(third.outcome).toBe('completed');
    expect(paths.length).toBeGreaterThan(0);
    const summary = loop.session.items.find(isSummaryItem);
    expect(summary?.text).toContain('RangeError: Invalid time value');
    const finished = telemetry.find((event) => event.type === 'CompactionFinished');
    expect(finished).toMatchObject({ tier: 'summary' });

    const nested = telemetry.filter((event) => event.type === 'ChildLoopEmitted');
    expect(nested.length).toBeGreaterThan(0);
    const compactingRuns = new Set(
      telemetry.filter((event) => event.type === 'CompactionStarted').map((event) => event.runId),
    );
    for (const event of nested) {
      expect(event.source).toBe('agent:scripted');
      expect(compactingRuns.has(event.runId)).toBe(true);
      expect(event.event.sessionId).not.toBe(loop.session.sessionId);
    }
    expect(nested.map((event) => event.event.type)).toContain('ToolCallFinished');
    const started = telemetry.findIndex((event) => event.type === 'CompactionStarted');
    const ended = telemetry.findIndex((event) => event.type === 'CompactionFinished');
    const firstNested = telemetry.findIndex((event) => event.type === 'ChildLoopEmitted');
    expect(started).toBeLessThan(firstNested);
    expect(firstNested).toBeLessThan(ended);

    // The child loop is an actor of the loop's own system, whose parent is the compact actor.
    const children = inspected
      .filter((event) => event.type === '@xstate.actor')
      .map((event) => event.actorRef as AnyActorRef)
      .filter((actor) => actor._parent?._parent === loop && actor.src !== 'compact');
    expect(children.map((actor) => actor._parent?.src)).toContain('compact');
  });

  it('honours the AbortSignal: aborting stops the child loop', async () => {
    const model = new ScriptedModel({ tokens, turns: [{ text: sixSections, delayMs: Infinity }] });
    const events: TelemetryEvent[] = [];
    let inferenceStarted = (): void => undefined;
    const inferring = new Promise<void>((resolve) => {
      inferenceStarted = resolve;
    });
    const backend = agentSummarizer({
      model,
      tokens,
      onTelemetry: (event) => {
        events.push(event);
        if (event.type === 'InferenceStarted') inferenceStarted();
      },
    });
    const controller = new AbortController();
    const pending = backend
      .summarize({ transcript: record, signal: controller.signal })
      .catch((error: unknown) => error);
    await inferring;
    controller.abort();
    const error = await pending;
    expect(CompactionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'summary_aborted' });
    expect(events.at(-1)).toMatchObject({ type: 'RunFinished', outcome: 'aborted' });
    expect(model.requests[0]?.signal?.aborted).toBe(true);

    const already = new AbortController();
    already.abort();
    await expect(
      backend.summarize({ transcript: record, signal: already.signal }),
    ).rejects.toSatisfy(AbortedError.isInstance);
  });

  it('fails with a CompactionError when the child answers without the sections', async () => {
    const model = new ScriptedModel({ tokens, turns: [{ text: 'It was about dates.' }] });
    const error = await agentSummarizer({ model, tokens })
      .summarize({ transcript: record, signal: new AbortController().signal })
      .catch((caught: unknown) => caught);
    expect(CompactionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'summary_rejected' });
  });

  it('refuses options it cannot work with', () => {
    const model = new ScriptedModel({ tokens });
    expect(() => agentSummarizer({ model: {} as never })).toThrow(ConfigError);
    expect(() => agentSummarizer({ model, maxInputTokens: 0 })).toThrow(ConfigError);
    expect(() => agentSummarizer({ model, maxSteps: 0 })).toThrow(ConfigError);
  });

  describe('with the real openai SDK', () => {
    let server: FakeOpenAIServer;
    beforeAll(async () => {
      server = await startFakeOpenAIServer();
    });
    afterAll(async () => {
      await server.close();
    });

    it('calls a tool over HTTP, then returns the six sections', async () => {
      const { tool, paths } = fileReader();
      server.enqueue({
        toolCalls: [{ name: 'read_file', arguments: '{"path":"src/dates.ts"}' }],
      });
      server.enqueue({ text: sixSections, usage: { promptTokens: 200, completionTokens: 60 } });
      const before = server.requests.length;
      const backend = agentSummarizer({
        model: openAIChatModel({ baseURL: server.url, apiKey: 'test-key', model: 'summary-mini' }),
        tools: [tool],
        tokens,
      });
      const result = await backend.summarize({
        transcript: record,
        signal: new AbortController().signal,
      });
      expect(result.text).toBe(sixSections);
      expect(result.usage?.completionTokens).toBeGreaterThanOrEqual(60);
      expect(paths).toEqual(['src/dates.ts']);
      const requests = server.requests.slice(before);
      expect(requests).toHaveLength(2);
      const messages = requests[1]?.body?.messages ?? [];
      expect(messages.map((message) => message.role)).toEqual([
        'system',
        'user',
        'assistant',
        'tool',
      ]);
      expect(String(messages[0]?.content)).toMatch(/untrusted data/i);
      expect(String(messages[1]?.content)).toContain('<conversation_record>');
      expect(backend.name).toBe('agent:openai:summary-mini');
    });
  });
});
