import { type Item, ModelError } from 'loopkeeper';
import type { ModelDelta, ModelRequest, ToolSpec } from 'loopkeeper/model';
import { ScriptedModel } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { describe, expect, it } from 'vitest';
import { loadTranscriptFixtures } from '../support/transcripts.js';

/** A deterministic counter: one token per started four characters, four per item. */
const counter: Pick<TokenCounter, 'count' | 'countText'> = {
  countText: (text) => Math.ceil(text.length / 4),
  count: (items) =>
    items.reduce((total, item) => total + 4 + Math.ceil(itemText(item).length / 4), 0),
};

function itemText(item: Item): string {
  switch (item.kind) {
    case 'user':
      return typeof item.content === 'string' ? item.content : JSON.stringify(item.content);
    case 'assistant':
      return (item.text ?? '') + JSON.stringify(item.toolCalls ?? []);
    case 'toolResult':
      return item.content;
    case 'context':
      return item.text;
  }
}

const tools: ToolSpec[] = [
  { name: 'bash', description: 'Run a shell command', parameters: { type: 'object' } },
];

function request(transcript: readonly Item[], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { transcript, tools: [], signal: new AbortController().signal, ...extra };
}

const hello: Item = { kind: 'user', id: 'u1', content: 'Hello, please list the files.' };

describe('ScriptedModel', () => {
  it('answers its turns in order and records every request', async () => {
    const model = new ScriptedModel({
      turns: [
        {
          toolCalls: [
            { name: 'bash', arguments: { command: 'ls' } },
            { id: 'own', name: 'bash', arguments: '{bad' },
          ],
        },
        { text: 'Done.', reasoning: 'The listing answered it.' },
      ],
    });
    const first = await model.generate(request([hello]));
    const second = await model.generate(request([hello]));

    expect(first.toolCalls).toEqual([
      { id: 'call_scripted_1', name: 'bash', arguments: '{"command":"ls"}' },
      { id: 'own', name: 'bash', arguments: '{bad' },
    ]);
    expect(first.finishReason).toBe('tool_calls');
    expect(second).toMatchObject({
      text: 'Done.',
      reasoning: [{ text: 'The listing answered it.' }],
      finishReason: 'stop',
      model: 'scripted-model',
    });
    expect(model.requests).toHaveLength(2);
    expect(model.responses).toEqual([first, second]);
    expect(model.remainingTurns).toBe(0);
  });

  it('throws a scripted error as is and passes the request to a turn function', async () => {
    const overflow = new ModelError('too long', { kind: 'context_overflow', status: 400 });
    const model = new ScriptedModel({
      turns: [
        { error: overflow },
        (received) => ({ text: `saw ${received.transcript.length} items` }),
      ],
    });
    await expect(model.generate(request([hello]))).rejects.toBe(overflow);
    await expect(model.generate(request([hello, hello]))).resolves.toMatchObject({
      text: 'saw 2 items',
    });
  });

  it('throws a clear ModelError when the script runs out', async () => {
    const model = new ScriptedModel({ turns: [{ text: 'only answer' }] });
    await model.generate(request([hello]));
    const failure = await model.generate(request([hello])).catch((error: unknown) => error);
    expect(ModelError.isInstance(failure)).toBe(true);
    expect((failure as ModelError).retryable).toBe(false);
    expect((failure as ModelError).message).toMatch(/no turn left for request #2.*1 turn/);
  });

  it('asks the script function once the turns are used up', async () => {
    const model = new ScriptedModel({
      turns: [{ text: 'scripted' }],
      script: (received) => ({ text: `generated for ${received.transcript.length}` }),
    });
    await model.generate(request([hello]));
    await expect(model.generate(request([hello, hello, hello]))).resolves.toMatchObject({
      text: 'generated for 3',
    });
  });

  it('reports usage computed from the request, as a provider would', async () => {
    const model = new ScriptedModel({
      turns: [
        { text: 'Four words right here.' },
        { text: 'x' },
        { text: 'y', usage: { promptTokens: 7, completionTokens: 1 } },
      ],
      tokens: counter,
      promptOverheadTokens: 5,
    });
    const instructions = 'You are a careful agent.';
    const small = await model.generate(request([hello], { instructions, tools }));
    const expectedPrompt =
      counter.count([hello]) +
      4 +
      counter.countText(instructions) +
      counter.countText(JSON.stringify(tools)) +
      5;
    expect(small.usage).toEqual({
      promptTokens: expectedPrompt,
      completionTokens: counter.countText('Four words right here.'),
    });

    const longer: Item[] = [hello, { kind: 'user', id: 'u2', content: 'More text '.repeat(100) }];
    const large = await model.generate(request(longer, { instructions, tools }));
    expect(large.usage?.promptTokens).toBe(expectedPrompt + counter.count([longer[1] as Item]));

    const explicit = await model.generate(request(longer));
    expect(explicit.usage).toEqual({ promptTokens: 7, completionTokens: 1 });
  });

  it('reports no usage when usage is false', async () => {
    const model = new ScriptedModel({ turns: [{ text: 'quiet' }], usage: false });
    expect((await model.generate(request([hello]))).usage).toBeUndefined();
  });

  it('fails an over-window request as a provider overflow without using up a turn', async () => {
    const model = new ScriptedModel({
      turns: [{ text: 'fits' }],
      tokens: counter,
      contextWindow: 100,
    });
    const big: Item = { kind: 'user', id: 'big', content: 'word '.repeat(200) };
    const failure = await model.generate(request([big])).catch((error: unknown) => error);
    expect(failure).toMatchObject({ kind: 'context_overflow', status: 400, retryable: false });
    expect((failure as Error).message).toMatch(/maximum context length is 100 tokens/);
    await expect(model.generate(request([hello]))).resolves.toMatchObject({ text: 'fits' });
    expect(model.requests).toHaveLength(2);
  });

  it('ends a slow turn with kind aborted when the signal aborts', async () => {
    const model = new ScriptedModel({
      turns: [{ text: 'never', delayMs: Number.POSITIVE_INFINITY }],
    });
    const controller = new AbortController();
    const pending = model.generate(request([hello], { signal: controller.signal }));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ kind: 'aborted' });
    await expect(
      new ScriptedModel({ turns: [{ text: 'x' }] }).generate(
        request([hello], { signal: AbortSignal.abort() }),
      ),
    ).rejects.toMatchObject({ kind: 'aborted' });
  });

  it('streams the answer text through onDelta', async () => {
    const deltas: string[] = [];
    const model = new ScriptedModel({ turns: [{ text: 'Several words, streamed one by one.' }] });
    await model.generate(
      request([hello], {
        onDelta: (delta) => deltas.push(delta.type === 'text' ? delta.delta : ''),
      }),
    );
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Several words, streamed one by one.');
  });

  it('streams reasoning, text and each tool call through onDelta, as a streaming provider would', async () => {
    const deltas: ModelDelta[] = [];
    const model = new ScriptedModel({
      turns: [
        {
          reasoning: 'Check the time first.',
          text: 'Looking it up.',
          toolCalls: [{ id: 'c1', name: 'now', arguments: { zone: 'Europe/Paris' } }],
        },
      ],
    });
    const response = await model.generate(
      request([hello], { onDelta: (delta) => deltas.push(delta) }),
    );
    const joined = (type: ModelDelta['type']) =>
      deltas.flatMap((delta) => (delta.type === type ? [delta.delta] : [])).join('');
    expect(joined('reasoning')).toBe('Check the time first.');
    expect(joined('text')).toBe('Looking it up.');
    expect(joined('tool_call')).toBe(response.toolCalls?.[0]?.arguments);
    expect(deltas.map((delta) => delta.type)).toEqual([
      ...Array(4).fill('reasoning'),
      ...Array(3).fill('text'),
      ...Array(3).fill('tool_call'),
    ]);
    expect(deltas.at(-3)).toEqual({
      type: 'tool_call',
      index: 0,
      callId: 'c1',
      toolName: 'now',
      delta: '',
    });
  });

  it('streams nothing with streamDeltas: false', async () => {
    const deltas: ModelDelta[] = [];
    const model = new ScriptedModel({ streamDeltas: false, turns: [{ text: 'Quiet answer.' }] });
    await model.generate(request([hello], { onDelta: (delta) => deltas.push(delta) }));
    expect(deltas).toEqual([]);
  });
});

describe('ScriptedModel.fromChatMessages', () => {
  for (const fixture of loadTranscriptFixtures()) {
    it(`replays ${fixture.file} turn by turn`, async () => {
      const model = ScriptedModel.fromChatMessages(fixture.messages, { tokens: counter });
      const transcript: Item[] = [];
      let previousPrompt = 0;
      for (const [index, message] of fixture.messages.entries()) {
        if (message.role !== 'assistant') {
          transcript.push(itemFromMessage(message, index));
          continue;
        }
        const response = await model.generate(request(transcript));
        const recordedCalls = (message.tool_calls ?? []).map(
          (call: { id: string; function: { name: string; arguments: string } }) => ({
            id: call.id,
            name: call.function.name,
            arguments: call.function.arguments,
          }),
        );
        expect(response.toolCalls ?? []).toEqual(recordedCalls);
        expect(response.text).toBe(
          typeof message.content === 'string' && message.content !== ''
            ? message.content
            : undefined,
        );
        // Usage grows with the transcript, so triggers fed by it fire as the session gets long.
        expect(response.usage?.promptTokens).toBeGreaterThan(previousPrompt);
        previousPrompt = response.usage?.promptTokens ?? 0;
        transcript.push(itemFromMessage(message, index));
      }
      expect(model.remainingTurns).toBe(0);
      await expect(model.generate(request(transcript))).rejects.toThrow(/no turn left/);
    });
  }
});

describe('ScriptedModel.fromTranscript', () => {
  it('gives every call a fresh, unique id when replaying with callIds regenerate', async () => {
    const recorded: Item[] = [
      hello,
      { kind: 'assistant', id: 'a1', toolCalls: [{ id: 'call_x', name: 'bash', arguments: '{}' }] },
      {
        kind: 'toolResult',
        id: 't1',
        callId: 'call_x',
        toolName: 'bash',
        content: 'a.txt',
        isError: false,
      },
      { kind: 'assistant', id: 'a2', text: 'There is one file.' },
    ];
    // The same recording twice: preserved ids would collide in one session.
    const model = ScriptedModel.fromTranscript([...recorded, ...recorded], {
      callIds: 'regenerate',
    });
    const ids: string[] = [];
    for (let turn = 0; turn < 4; turn += 1) {
      const response = await model.generate(request([hello]));
      ids.push(...(response.toolCalls ?? []).map((call) => call.id));
    }
    expect(ids).toEqual(['call_scripted_1', 'call_scripted_2']);
    expect(model.responses.map((response) => response.text)).toEqual([
      undefined,
      'There is one file.',
      undefined,
      'There is one file.',
    ]);

    const preserved = ScriptedModel.fromTranscript(recorded);
    expect((await preserved.generate(request([hello]))).toolCalls?.[0]?.id).toBe('call_x');
  });
});

/** Just enough conversion for requests to grow like the real session (not a full converter). */
// biome-ignore lint/suspicious/noExplicitAny: raw chat messages from the fixture files
function itemFromMessage(message: any, index: number): Item {
  const id = `m${index}`;
  const content =
    typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? '');
  switch (message.role) {
    case 'assistant':
      return {
        kind: 'assistant',
        id,
        text: content,
        toolCalls: (message.tool_calls ?? []).map(
          (call: { id: string; function: { name: string; arguments: string } }) => ({
            id: call.id,
            name: call.function.name,
            arguments: call.function.arguments,
          }),
        ),
      };
    case 'tool':
      return {
        kind: 'toolResult',
        id,
        callId: message.tool_call_id,
        toolName: 'tool',
        content,
        isError: false,
      };
    case 'system':
      return { kind: 'context', id, text: content };
    default:
      return { kind: 'user', id, content };
  }
}
