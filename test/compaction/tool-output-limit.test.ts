import {
  ConfigError,
  contextWindowTrigger,
  createAgentLoop,
  createCompactor,
  defineTool,
  effectiveHistory,
  type Item,
  MemorySessionStore,
  openAIChatModel,
  runTurn,
  tokenBudgetTrigger,
  validateTranscript,
} from 'loopkeeper';
import { toolOutputLimit } from 'loopkeeper/compaction';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  fakeServerPerTest,
  readSession,
  recordTelemetry,
  sharedTokenCounter,
} from '../support/loop-harness.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});
const startServer = fakeServerPerTest();

const bigOutput = [
  '$ pytest tests/test_fields.py',
  ...Array.from({ length: 400 }, (_, index) => `collected item ${index} in tests/test_fields.py`),
  'TypeError: unsupported operand in src/marshmallow/fields.py line 1474 (ticket MM-1867)',
  ...Array.from({ length: 400 }, (_, index) => `teardown ${index}`),
  '1 failed, 399 passed',
].join('\n');

/** A shell tool whose `pytest` prints the large output and anything else a short one. */
const bash = defineTool({
  name: 'bash',
  description: 'Runs a command.',
  parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] },
  execute: ({ cmd }: { cmd: string }) => (cmd === 'pytest' ? bigOutput : 'setup.py src tests'),
});

function result(id: string, content: string): Item {
  return {
    kind: 'toolResult',
    id: `r_${id}`,
    callId: id,
    toolName: 'bash',
    content,
    isError: false,
  };
}

function call(...ids: string[]): Item {
  return {
    kind: 'assistant',
    id: `a_${ids.join('_')}`,
    toolCalls: ids.map((id) => ({ id, name: 'bash', arguments: '{}' })),
  };
}

const signal = () => new AbortController().signal;

describe('toolOutputLimit', () => {
  it('clips the step’s new outputs over the cap, head, tail and facts kept, and nothing else', async () => {
    const transcript: Item[] = [
      { kind: 'user', id: 'u', content: 'Fix the failing test.' },
      call('c1'),
      result('c1', bigOutput),
      call('c2', 'c3'),
      result('c2', bigOutput),
      result('c3', 'ok'),
    ];
    const mutator = toolOutputLimit({ maxTokens: 300 });
    expect(mutator.points).toEqual(['AfterToolResult']);
    const output = await mutator.mutate({
      transcript,
      tokens,
      point: 'AfterToolResult',
      signal: signal(),
    });
    if (!output.dirty) throw new Error('expected the new big output to be clipped');
    expect(output.metadata).toMatchObject({ itemsClipped: 1 });
    expect(output.metadata['tokensSaved']).toBeGreaterThan(
      tokens.countItem(transcript[4] as Item) / 2,
    );
    // The older output was read whole by the model already: it is left to compaction.
    expect(output.transcript.slice(0, 4)).toEqual(transcript.slice(0, 4));
    expect(output.transcript[5]).toBe(transcript[5]);
    const clipped = output.transcript[4];
    if (clipped?.kind !== 'toolResult') throw new Error('expected a tool result');
    expect(clipped.callId).toBe('c2');
    expect(clipped.id).not.toBe('r_c2');
    expect(tokens.countItem(clipped)).toBeLessThanOrEqual(300);
    expect(clipped.content.startsWith('$ pytest tests/test_fields.py')).toBe(true);
    expect(clipped.content.endsWith('1 failed, 399 passed')).toBe(true);
    // The error line from the cut middle is named in the note.
    expect(clipped.content).toContain('src/marshmallow/fields.py');
    expect(validateTranscript(output.transcript)).toEqual([]);
    // Idempotent: a clipped output is not clipped again.
    const again = await mutator.mutate({
      transcript: output.transcript,
      tokens,
      point: 'AfterToolResult',
      signal: signal(),
    });
    expect(again.dirty).toBe(false);
  });

  it('leaves outputs within the cap alone', async () => {
    const transcript: Item[] = [call('c1'), result('c1', 'small output')];
    const output = await toolOutputLimit({ maxTokens: 300 }).mutate({
      transcript: [{ kind: 'user', id: 'u', content: 'go' }, ...transcript],
      tokens,
      point: 'AfterToolResult',
      signal: signal(),
    });
    expect(output).toEqual({ dirty: false, metadata: { itemsClipped: 0 } });
  });

  it('refuses a cap that is not a positive number with a ConfigError', () => {
    expect(() => toolOutputLimit({ maxTokens: 0 })).toThrow(ConfigError);
    expect(() => toolOutputLimit({ maxTokens: Number.NaN })).toThrow(ConfigError);
  });

  it('in the loop: the model reads the clipped copy, the log keeps the whole output', async () => {
    const { toolMessages, events, telemetry, items } = await bashTurn(
      [
        { id: 'call_big', name: 'bash', arguments: { cmd: 'pytest' } },
        { id: 'call_small', name: 'bash', arguments: { cmd: 'ls' } },
      ],
      { mutators: [toolOutputLimit({ maxTokens: 300 })] },
    );
    expect(toolMessages.map((message) => message.content?.length)).toEqual([
      expect.any(Number),
      'setup.py src tests'.length,
    ]);
    const sent = toolMessages[0]?.content ?? '';
    expect(sent.length).toBeLessThan(bigOutput.length / 4);
    expect(sent).toContain('1 failed, 399 passed');

    // The log holds the output whole, and a marker records the replacement.
    const logged = events.flatMap((event) => (event.type === 'items-appended' ? event.items : []));
    expect(logged.some((item) => item.kind === 'toolResult' && item.content === bigOutput)).toBe(
      true,
    );
    const markers = events.filter((event) => event.type === 'transcript-replaced');
    expect(markers).toMatchObject([{ tier: 'mutator', strategies: ['toolOutputLimit'] }]);
    expect(effectiveHistory(events)).toEqual(items);
    expect(
      telemetry
        .filter((event) => event.type === 'MutationFinished')
        .map((event) => ({ mutator: event.mutator, dirty: event.dirty })),
    ).toEqual([{ mutator: 'toolOutputLimit', dirty: true }]);
  });
});

/**
 * One turn through the real loop whose model makes `toolCalls` of the `bash` tool and then
 * answers: the tool messages the model was sent after the calls, the log, the telemetry and the
 * loop's items at the end.
 */
async function bashTurn(
  toolCalls: { id: string; name: string; arguments: Record<string, unknown> }[],
  options: Pick<Parameters<typeof createAgentLoop>[0], 'mutators' | 'compactor'>,
) {
  const server = await startServer({
    replies: [{ toolCalls }, { text: 'The test fails in fields.py.' }],
  });
  const store = new MemorySessionStore();
  const loop = createAgentLoop({
    model: openAIChatModel({ baseURL: server.url, apiKey: 'test-key', model: 'gpt-test' }),
    tools: [bash],
    store,
    tokens,
    ...options,
  });
  const telemetry = recordTelemetry(loop);
  loop.start();
  expect((await runTurn(loop, 'Why does the test fail?')).outcome).toBe('completed');
  const messages = server.requests[1]?.body?.messages as { role: string; content?: string }[];
  const toolMessages = messages.filter((message) => message.role === 'tool');
  const events = await readSession(store, loop.session.sessionId);
  const items = loop.session.items;
  loop.stop();
  return { toolMessages, events, telemetry, items };
}

describe("createCompactor's tool-output cap", () => {
  /** One turn that runs pytest, through the real loop; what the model was sent, and the log. */
  async function runPytest(compactor: ReturnType<typeof createCompactor>) {
    const { toolMessages, events, telemetry } = await bashTurn(
      [{ id: 'call_big', name: 'bash', arguments: { cmd: 'pytest' } }],
      { compactor },
    );
    return { sent: toolMessages[0]?.content ?? '', events, telemetry };
  }

  it('by default caps a new output at 5.5% of the window in the request; the log keeps it whole', async () => {
    const window = 20_000;
    // The output is larger than the cap, and the request with it whole stays under the line:
    // only the cap, not a compaction, can have clipped it.
    expect(tokens.countText(bigOutput)).toBeGreaterThan(window * 0.055);
    expect(tokens.countText(bigOutput)).toBeLessThan(window * 0.55 - 1_000);
    const { sent, events, telemetry } = await runPytest(
      createCompactor({ trigger: contextWindowTrigger({ window }) }),
    );
    expect(tokens.countText(sent)).toBeLessThanOrEqual(window * 0.055);
    expect(sent.startsWith('$ pytest tests/test_fields.py')).toBe(true);
    expect(sent).toContain('1 failed, 399 passed');
    expect(sent).toContain('src/marshmallow/fields.py');
    const logged = events.flatMap((event) => (event.type === 'items-appended' ? event.items : []));
    expect(logged.some((item) => item.kind === 'toolResult' && item.content === bigOutput)).toBe(
      true,
    );
    expect(events.filter((event) => event.type === 'transcript-replaced')).toMatchObject([
      { tier: 'mutator', strategies: ['toolOutputLimit'] },
    ]);
    expect(validateTranscript(effectiveHistory(events))).toEqual([]);
    expect(telemetry.some((event) => event.type === 'CompactionFinished')).toBe(false);
  });

  it('`toolOutputLimit: false` shows every output whole', async () => {
    const { sent, events } = await runPytest(
      createCompactor({
        trigger: contextWindowTrigger({ window: 20_000 }),
        toolOutputLimit: false,
      }),
    );
    expect(sent).toBe(bigOutput);
    expect(events.some((event) => event.type === 'transcript-replaced')).toBe(false);
  });

  it('`toolOutputLimit: {maxTokens}` sets the cap, also for a trigger that knows no window', async () => {
    const { sent } = await runPytest(
      createCompactor({ trigger: tokenBudgetTrigger(), toolOutputLimit: { maxTokens: 300 } }),
    );
    expect(tokens.countText(sent)).toBeLessThanOrEqual(300);
    // Without a window there is no share to take, so no default cap.
    expect(createCompactor({ trigger: tokenBudgetTrigger() }).toolOutputLimit).toBeUndefined();
  });

  it('refuses a cap that is not false or a positive {maxTokens}, and a second cap in the loop', () => {
    const trigger = contextWindowTrigger({ window: 20_000 });
    expect(() => createCompactor({ trigger, toolOutputLimit: { maxTokens: 0 } })).toThrow(
      ConfigError,
    );
    expect(() => createCompactor({ trigger, toolOutputLimit: true as unknown as false })).toThrow(
      /toolOutputLimit/,
    );
    expect(() =>
      createAgentLoop({
        model: openAIChatModel({ baseURL: 'http://localhost:1', apiKey: 'k', model: 'm' }),
        compactor: createCompactor({ trigger }),
        mutators: [toolOutputLimit({ maxTokens: 300 })],
      }),
    ).toThrow(/caps tool outputs already/);
  });
});
