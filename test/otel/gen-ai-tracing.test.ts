import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  createAgentLoop,
  createCompactor,
  defineTool,
  extractiveSummarizer,
  ModelError,
  runTurn,
  type TelemetryEvent,
  tokenBudgetTrigger,
} from 'loopkeeper';
import { createGenAiTracing } from 'loopkeeper/otel';
import { ScriptedModel, type ScriptedTurn } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { recordTelemetry, sharedTokenCounter } from '../support/loop-harness.js';
import { memoryTracer, parentOf, spansNamed, spanTree, useAsyncContext } from './span-tree.js';

let tokens: TokenCounter;
let asyncContext: { disable(): void };
beforeAll(async () => {
  tokens = await sharedTokenCounter();
  asyncContext = useAsyncContext();
});
afterAll(() => asyncContext.disable());

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a word up.',
  parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
  execute: ({ word }: { word: string }) => `definition of ${word}`,
});
const fetchPage = defineTool({
  name: 'fetch_page',
  description: 'Returns a long page.',
  parameters: { type: 'object' },
  execute: () => 'page text '.repeat(400),
});

function tracedLoop({
  turns,
  captureContent,
  compact = false,
}: {
  turns: readonly ScriptedTurn[];
  captureContent?: boolean;
  compact?: boolean;
}) {
  const { exporter, tracer } = memoryTracer();
  const tracing = createGenAiTracing({
    tracer,
    agentName: 'helper',
    ...(captureContent === undefined ? {} : { captureContent }),
  });
  const model = new ScriptedModel({ tokens, streamDeltas: false, turns });
  const loop = createAgentLoop({
    model: tracing.wrapModel(model),
    tools: [lookup, fetchPage],
    tokens,
    ...(compact
      ? {
          // The second page pushes the transcript over 1,000 tokens: one structural compaction.
          compactor: createCompactor({
            trigger: tokenBudgetTrigger({ maxTokens: 1_000, targetRatio: 0.9 }),
            backend: extractiveSummarizer(),
            structural: { pruneToolResults: { protectRecentTokens: 0, minSavingsTokens: 10 } },
          }),
        }
      : {}),
  });
  const telemetry = recordTelemetry(loop);
  tracing.attach(loop);
  loop.start();
  return { loop, exporter, telemetry, tracing };
}

function only<Type extends TelemetryEvent['type']>(
  events: readonly TelemetryEvent[],
  type: Type,
): Extract<TelemetryEvent, { type: Type }>[] {
  return events.filter(
    (event): event is Extract<TelemetryEvent, { type: Type }> => event.type === type,
  );
}

describe('createGenAiTracing: a turn with tools', () => {
  it('makes one invoke_agent span with chat and execute_tool children, named and attributed by the conventions', async () => {
    const { loop, exporter, telemetry } = tracedLoop({
      turns: [
        { toolCalls: [{ id: 'call_1', name: 'lookup', arguments: { word: 'otter' } }] },
        { toolCalls: [{ id: 'call_2', name: 'fetch_page', arguments: {} }] },
        { text: 'An otter is a mammal.' },
      ],
    });
    const finished = await runTurn(loop, 'What is an otter?');
    expect(finished.outcome).toBe('completed');
    const spans = exporter.getFinishedSpans();
    expect(spanTree(spans)).toEqual([
      'invoke_agent helper',
      '  chat scripted-model',
      '  execute_tool lookup',
      '  chat scripted-model',
      '  execute_tool fetch_page',
      '  chat scripted-model',
    ]);

    const [run] = spansNamed(spans, 'invoke_agent helper');
    const inferences = only(telemetry, 'InferenceFinished');
    const sum = (pick: (event: (typeof inferences)[number]) => number) =>
      inferences.reduce((total, event) => total + pick(event), 0);
    expect(run?.kind).toBe(SpanKind.INTERNAL);
    expect(run?.status.code).toBe(SpanStatusCode.UNSET);
    expect(run?.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'helper',
      'gen_ai.conversation.id': loop.session.sessionId,
      'gen_ai.request.model': 'scripted-model',
      'gen_ai.usage.input_tokens': sum((event) => event.usage?.promptTokens ?? 0),
      'gen_ai.usage.output_tokens': sum((event) => event.usage?.completionTokens ?? 0),
      'loopkeeper.run.id': finished.runId,
      'loopkeeper.run.outcome': 'completed',
      'loopkeeper.run.steps': 3,
    });

    const chats = spansNamed(spans, 'chat scripted-model');
    expect(chats.map((chat) => chat.kind)).toEqual([
      SpanKind.CLIENT,
      SpanKind.CLIENT,
      SpanKind.CLIENT,
    ]);
    expect(chats.map((chat) => chat.attributes['gen_ai.response.finish_reasons'])).toEqual([
      ['tool_calls'],
      ['tool_calls'],
      ['stop'],
    ]);
    const started = only(telemetry, 'InferenceStarted');
    expect(chats[0]?.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.conversation.id': loop.session.sessionId,
      'gen_ai.request.model': 'scripted-model',
      'gen_ai.response.model': 'scripted-model',
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'gen_ai.usage.input_tokens': inferences[0]?.usage?.promptTokens,
      'gen_ai.usage.output_tokens': inferences[0]?.usage?.completionTokens,
      'loopkeeper.step': 1,
      'loopkeeper.request.estimated_tokens': started[0]?.estimatedPromptTokens,
      'loopkeeper.request.item_count': 1,
      'loopkeeper.response.tool_calls': 1,
      'loopkeeper.response.text_length': 0,
    });
    expect(chats[2]?.attributes['loopkeeper.response.text_length']).toBe(
      'An otter is a mammal.'.length,
    );

    const [tool] = spansNamed(spans, 'execute_tool lookup');
    expect(tool?.kind).toBe(SpanKind.INTERNAL);
    expect(tool?.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.conversation.id': loop.session.sessionId,
      'gen_ai.tool.name': 'lookup',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.type': 'function',
      'loopkeeper.tool.arguments_length': '{"word":"otter"}'.length,
      'loopkeeper.tool.is_error': false,
      'loopkeeper.tool.output_length': 'definition of otter'.length,
    });
    // Content is off by default: no messages, no arguments anywhere.
    const keys = spans.flatMap((span) => Object.keys(span.attributes));
    expect(keys).not.toContain('gen_ai.input.messages');
    expect(keys).not.toContain('gen_ai.output.messages');
    expect(keys).not.toContain('gen_ai.tool.call.arguments');
    loop.stop();
  });

  it('records message content and tool arguments only when asked to', async () => {
    const { loop, exporter } = tracedLoop({
      captureContent: true,
      turns: [
        { toolCalls: [{ id: 'call_1', name: 'lookup', arguments: { word: 'otter' } }] },
        { text: 'An otter is a mammal.' },
      ],
    });
    await runTurn(loop, 'What is an otter?');
    const spans = exporter.getFinishedSpans();
    const chats = spansNamed(spans, 'chat scripted-model');
    expect(JSON.parse(String(chats[0]?.attributes['gen_ai.input.messages']))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'What is an otter?' }] },
    ]);
    expect(JSON.parse(String(chats[0]?.attributes['gen_ai.output.messages']))).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'call_1', name: 'lookup', arguments: '{"word":"otter"}' }],
        finish_reason: 'tool_calls',
      },
    ]);
    expect(JSON.parse(String(chats[1]?.attributes['gen_ai.input.messages'])).at(-1)).toEqual({
      role: 'tool',
      parts: [{ type: 'tool_call_response', id: 'call_1', response: 'definition of otter' }],
    });
    expect(JSON.parse(String(chats[1]?.attributes['gen_ai.output.messages']))).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'text', content: 'An otter is a mammal.' }],
        finish_reason: 'stop',
      },
    ]);
    const [tool] = spansNamed(spans, 'execute_tool lookup');
    expect(tool?.attributes['gen_ai.tool.call.arguments']).toBe('{"word":"otter"}');
    loop.stop();
  });
});

describe('createGenAiTracing: a compaction', () => {
  it('is a loopkeeper.compaction span under the run and a gen_ai.conversation.compacted event on it', async () => {
    const { loop, exporter, telemetry } = tracedLoop({
      compact: true,
      turns: [
        { toolCalls: [{ id: 'call_1', name: 'fetch_page', arguments: {} }] },
        { toolCalls: [{ id: 'call_2', name: 'fetch_page', arguments: {} }] },
        { text: 'Both pages read.' },
      ],
    });
    await runTurn(loop, 'Read two pages.');
    const spans = exporter.getFinishedSpans();
    expect(spanTree(spans)).toEqual([
      'invoke_agent helper',
      '  chat scripted-model',
      '  execute_tool fetch_page',
      '  chat scripted-model',
      '  execute_tool fetch_page',
      '  loopkeeper.compaction',
      '  chat scripted-model',
    ]);
    const [compacted] = only(telemetry, 'CompactionFinished');
    expect(compacted?.tokensAfter).toBeLessThan(compacted?.tokensBefore ?? 0);
    const expected = {
      'loopkeeper.compaction.reason': 'threshold',
      'loopkeeper.compaction.reactive': false,
      'loopkeeper.compaction.tier': 'structural',
      'loopkeeper.compaction.strategies': compacted?.strategies,
      'loopkeeper.compaction.tokens_before': compacted?.tokensBefore,
      'loopkeeper.compaction.tokens_after': compacted?.tokensAfter,
      'loopkeeper.compaction.effective': true,
    };
    const [compaction] = spansNamed(spans, 'loopkeeper.compaction');
    expect(compaction?.attributes).toMatchObject({
      ...expected,
      'gen_ai.conversation.id': loop.session.sessionId,
      'loopkeeper.compaction.attempt': 1,
      'loopkeeper.mutation.dirty': true,
    });
    const [run] = spansNamed(spans, 'invoke_agent helper');
    expect(run?.events.map((event) => event.name)).toEqual(['gen_ai.conversation.compacted']);
    expect(run?.events[0]?.attributes).toEqual(expected);
    loop.stop();
  });

  it('marks a compaction after a provider overflow as reactive, and the refused chat with its error code', async () => {
    const { loop, exporter } = tracedLoop({
      compact: true,
      turns: [
        { toolCalls: [{ id: 'call_1', name: 'fetch_page', arguments: {} }] },
        {
          error: new ModelError('This model maximum context length is 900 tokens.', {
            kind: 'context_overflow',
          }),
        },
        { text: 'Read.' },
      ],
    });
    const finished = await runTurn(loop, 'Read a page.');
    expect(finished.outcome).toBe('completed');
    const spans = exporter.getFinishedSpans();
    const chats = spansNamed(spans, 'chat scripted-model');
    expect(chats.map((chat) => chat.status.code)).toEqual([
      SpanStatusCode.UNSET,
      SpanStatusCode.ERROR,
      SpanStatusCode.UNSET,
    ]);
    expect(chats[1]?.attributes['error.type']).toBe('model_context_overflow');
    const [compaction] = spansNamed(spans, 'loopkeeper.compaction');
    expect(compaction?.attributes).toMatchObject({
      'loopkeeper.compaction.reason': 'overflow',
      'loopkeeper.compaction.reactive': true,
    });
    const [run] = spansNamed(spans, 'invoke_agent helper');
    expect(run?.events[0]?.attributes).toMatchObject({ 'loopkeeper.compaction.reactive': true });
    expect(run?.status.code).toBe(SpanStatusCode.UNSET);
    loop.stop();
  });
});

describe('createGenAiTracing: an abort', () => {
  it('ends the run and the chat in flight with the aborted code', async () => {
    const { loop, exporter } = tracedLoop({ turns: [{ text: 'never sent', delayMs: Infinity }] });
    loop.on('InferenceStarted', () => setTimeout(() => loop.send({ type: 'abort' }), 10));
    const finished = await runTurn(loop, 'Wait forever.');
    expect(finished.outcome).toBe('aborted');
    const spans = exporter.getFinishedSpans();
    expect(spanTree(spans)).toEqual(['invoke_agent helper', '  chat scripted-model']);
    const [run] = spansNamed(spans, 'invoke_agent helper');
    const [chat] = spansNamed(spans, 'chat scripted-model');
    expect(finished.error?.code).toBe('aborted');
    for (const span of [run, chat]) {
      expect(span?.status.code).toBe(SpanStatusCode.ERROR);
      expect(span?.attributes['error.type']).toBe(finished.error?.code);
    }
    expect(run?.attributes['loopkeeper.run.outcome']).toBe('aborted');
    expect(chat?.attributes['gen_ai.usage.input_tokens']).toBeUndefined();
    loop.stop();
  });
});

describe('createGenAiTracing: a failed run', () => {
  it('records the typed error code as error.type and an error status on the chat and the run', async () => {
    const { loop, exporter } = tracedLoop({
      turns: [
        { error: new ModelError('Incorrect API key provided.', { kind: 'auth', status: 401 }) },
      ],
    });
    const finished = await runTurn(loop, 'Hello?');
    expect(finished.outcome).toBe('failed');
    const spans = exporter.getFinishedSpans();
    expect(spanTree(spans)).toEqual(['invoke_agent helper', '  chat scripted-model']);
    for (const span of spans) {
      expect(span.attributes['error.type']).toBe('model_auth');
      expect(span.status).toEqual({
        code: SpanStatusCode.ERROR,
        message: 'ModelError: Incorrect API key provided.',
      });
    }
    const [run] = spansNamed(spans, 'invoke_agent helper');
    expect(run?.attributes['loopkeeper.run.outcome']).toBe('failed');
    loop.stop();
  });
});

describe("createGenAiTracing({chatSpans: 'none'})", () => {
  /** Stands in for @opentelemetry/instrumentation-openai: a chat span made inside the call. */
  function instrumentedModel(tracer: ReturnType<typeof memoryTracer>['tracer']) {
    const inner = new ScriptedModel({ tokens, streamDeltas: false, turns: [{ text: 'hi' }] });
    return {
      name: inner.name,
      model: inner.model,
      generate: (request: Parameters<ScriptedModel['generate']>[0]) => {
        const span = tracer.startSpan('chat gpt-instrumented');
        return inner.generate(request).finally(() => span.end());
      },
    };
  }

  it.each([
    ['none', ['invoke_agent', '  chat gpt-instrumented']],
    ['create', ['invoke_agent', '  chat scripted-model', '    chat gpt-instrumented']],
  ] as const)(
    'with %s, a chat span made inside the wrapped model nests as %j',
    async (chatSpans, tree) => {
      const { exporter, tracer } = memoryTracer();
      const tracing = createGenAiTracing({ tracer, chatSpans });
      const loop = createAgentLoop({ model: tracing.wrapModel(instrumentedModel(tracer)), tokens });
      tracing.attach(loop);
      loop.start();
      await runTurn(loop, 'Hello?');
      expect(spanTree(exporter.getFinishedSpans())).toEqual(tree);
      const [outer] = spansNamed(exporter.getFinishedSpans(), 'chat gpt-instrumented');
      expect(parentOf(exporter.getFinishedSpans(), outer as never)?.name).toBe(tree.at(-2)?.trim());
      loop.stop();
    },
  );
});

describe('createGenAiTracing robustness', () => {
  it('keeps the run undisturbed when the tracer throws, and reports it', async () => {
    const onError = vi.fn();
    const broken = trace.getTracer('broken');
    vi.spyOn(broken, 'startSpan').mockImplementation(() => {
      throw new Error('exporter bug');
    });
    const tracing = createGenAiTracing({ tracer: broken, onError });
    const loop = createAgentLoop({ model: new ScriptedModel({ turns: [{ text: 'ok' }] }), tokens });
    tracing.attach(loop);
    loop.start();
    const finished = await runTurn(loop, 'Hello?');
    expect(finished.outcome).toBe('completed');
    expect(onError).toHaveBeenCalledWith(new Error('exporter bug'));
    loop.stop();
  });

  it('refuses an unknown chatSpans mode with a ConfigError', () => {
    expect(() => createGenAiTracing({ chatSpans: 'some' as never })).toThrow(
      expect.objectContaining({ name: 'ConfigError', code: 'config_invalid_option' }),
    );
  });
});

describe('createGenAiTracing: streaming events', () => {
  it('marks the first delta of any kind as the time to first token, and each tool progress report on its tool span', () => {
    const { exporter, tracer } = memoryTracer();
    const tracing = createGenAiTracing({ tracer, agentName: 'helper' });
    const base = { sessionId: 'session-1', runId: 'run-1' };
    // An epoch time: the SDK reads small numbers as performance.now() offsets.
    const T = 1_800_000_000_000;
    const events: TelemetryEvent[] = [
      { ...base, type: 'RunStarted', at: T },
      { ...base, type: 'InferenceStarted', at: T + 10, step: 1, estimatedPromptTokens: 5 },
      { ...base, type: 'ReasoningDelta', at: T + 20, step: 1, delta: 'Think.' },
      { ...base, type: 'InferenceDelta', at: T + 30, step: 1, delta: 'Calling.' },
      {
        ...base,
        type: 'ToolCallDelta',
        at: T + 40,
        step: 1,
        index: 0,
        callId: 'call_1',
        toolName: 'lookup',
        delta: '{}',
      },
      {
        ...base,
        type: 'InferenceFinished',
        at: T + 50,
        step: 1,
        usage: undefined,
        toolCalls: 1,
        durationMs: 40,
      },
      { ...base, type: 'ToolCallStarted', at: T + 60, callId: 'call_1', toolName: 'lookup' },
      {
        ...base,
        type: 'ToolCallProgress',
        at: T + 70,
        callId: 'call_1',
        toolName: 'lookup',
        data: 1,
      },
      {
        ...base,
        type: 'ToolCallProgress',
        at: T + 80,
        callId: 'call_1',
        toolName: 'lookup',
        data: 2,
      },
      {
        ...base,
        type: 'ToolCallFinished',
        at: T + 90,
        callId: 'call_1',
        toolName: 'lookup',
        isError: false,
        durationMs: 30,
        outputLength: 4,
      },
      {
        ...base,
        type: 'RunFinished',
        at: T + 100,
        outcome: 'completed',
        steps: 1,
        error: undefined,
      },
    ];
    for (const event of events) tracing.record(event);

    const spans = exporter.getFinishedSpans();
    const [chat] = spansNamed(spans, 'chat');
    const [tool] = spansNamed(spans, 'execute_tool lookup');
    const millis = (time: readonly [number, number]) => time[0] * 1_000 + time[1] / 1e6;
    expect(chat?.events.map((event) => [event.name, millis(event.time)])).toEqual([
      ['loopkeeper.inference.first_delta', T + 20],
    ]);
    expect(tool?.events.map((event) => [event.name, millis(event.time)])).toEqual([
      ['loopkeeper.tool.progress', T + 70],
      ['loopkeeper.tool.progress', T + 80],
    ]);
  });
});
