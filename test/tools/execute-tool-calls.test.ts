import fc from 'fast-check';
import { ConfigError, defineTool } from 'loopkeeper';
import {
  createAbortedToolResults,
  executeToolCalls,
  type ToolCallFinishedInfo,
} from 'loopkeeper/tools';
import type { ToolCall } from 'loopkeeper/transcript';
import { describe, expect, it, vi } from 'vitest';

interface Deferred<Value = void> {
  readonly promise: Promise<Value>;
  resolve(value: Value): void;
}

function deferred<Value = void>(): Deferred<Value> {
  let resolve!: (value: Value) => void;
  const promise = new Promise<Value>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/** A promise that never settles: a tool that ignores its signal. */
const forever = () => new Promise<never>(() => {});

function call(name: string, args: unknown = {}, id = `call_${name}`): ToolCall {
  return { id, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) };
}

const echo = defineTool({
  name: 'echo',
  description: 'Returns its input.',
  parameters: {
    type: 'object',
    properties: {
      text: { type: 'string' },
      count: { type: 'integer' },
      ratio: { type: 'number' },
      mode: { type: ['string', 'null'], enum: ['loud', 'quiet', null] },
      note: { type: 'whatever-this-is' },
    },
    required: ['text'],
  },
  execute: ({ text }: { text: string }) => text,
});

describe('executeToolCalls', () => {
  it('hands progress a tool reports to onCallProgress with its call, between start and finish, and drops reports after the call settled', async () => {
    const late = deferred<(data: unknown) => void>();
    const seen: string[] = [];
    const steps = defineTool({
      name: 'steps',
      description: 'Reports two steps.',
      parameters: { type: 'object' },
      execute: (_args: Record<string, unknown>, { reportProgress }) => {
        reportProgress({ done: 1, of: 2 });
        reportProgress({ done: 2, of: 2 });
        late.resolve(reportProgress);
        return 'ok';
      },
    });
    const slow = defineTool({
      name: 'slow',
      description: 'Times out, then reports.',
      parameters: { type: 'object' },
      timeoutMs: 5,
      execute: (_args: Record<string, unknown>, { reportProgress, signal }) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () => {
            reportProgress('after the timeout');
            resolve('too late');
          }),
        ),
    });
    await executeToolCalls({
      tools: [steps, slow],
      calls: [call('steps'), call('slow')],
      onCallStarted: ({ callId }) => seen.push(`started ${callId}`),
      onCallProgress: ({ callId, toolName, data }) =>
        seen.push(`progress ${callId} ${toolName} ${JSON.stringify(data)}`),
      onCallFinished: ({ callId }) => seen.push(`finished ${callId}`),
    });
    (await late.promise)('after the result');
    expect(seen.filter((line) => line.includes('call_steps'))).toEqual([
      'started call_steps',
      'progress call_steps steps {"done":1,"of":2}',
      'progress call_steps steps {"done":2,"of":2}',
      'finished call_steps',
    ]);
    expect(seen.filter((line) => line.includes('call_slow'))).toEqual([
      'started call_slow',
      'finished call_slow',
    ]);
  });

  it('isolates a throwing onCallProgress: the tool goes on and its result counts', async () => {
    const errors: unknown[] = [];
    const chatty = defineTool({
      name: 'chatty',
      description: 'Reports, then answers.',
      parameters: { type: 'object' },
      execute: (_args: Record<string, unknown>, { reportProgress }) => {
        reportProgress('working');
        return 'answer';
      },
    });
    const [result] = await executeToolCalls({
      tools: [chatty],
      calls: [call('chatty')],
      onCallProgress: () => {
        throw new Error('listener broke');
      },
      onCallbackError: (error) => errors.push(error),
    });
    expect(result).toMatchObject({ content: 'answer', isError: false });
    expect(errors).toEqual([new Error('listener broke')]);
  });

  it('runs parallel calls concurrently: each tool waits for the other to start', async () => {
    const firstStarted = deferred();
    const secondStarted = deferred();
    const first = defineTool({
      name: 'first',
      description: 'Waits for second.',
      parameters: { type: 'object' },
      execute: async () => {
        firstStarted.resolve();
        await secondStarted.promise;
        return 'first done';
      },
    });
    const second = defineTool({
      name: 'second',
      description: 'Waits for first.',
      parameters: { type: 'object' },
      execute: async () => {
        secondStarted.resolve();
        await firstStarted.promise;
        return 'second done';
      },
    });

    // Run one after the other, each would wait for a start that never comes and time out.
    const results = await executeToolCalls({
      tools: [first, second],
      calls: [call('first'), call('second')],
      defaultTimeoutMs: 10_000,
    });

    expect(results.map(({ content, isError }) => ({ content, isError }))).toEqual([
      { content: 'first done', isError: false },
      { content: 'second done', isError: false },
    ]);
  });

  it('returns results in call order with the call ids, names and fresh item ids', async () => {
    const release = deferred();
    const slow = defineTool({
      name: 'slow',
      description: 'Finishes last.',
      parameters: { type: 'object' },
      execute: async () => {
        await release.promise;
        return 'slow';
      },
    });
    const fast = defineTool({
      name: 'fast',
      description: 'Finishes first.',
      parameters: { type: 'object' },
      execute: () => {
        release.resolve();
        return 'fast';
      },
    });
    let next = 0;
    const results = await executeToolCalls({
      tools: [slow, fast],
      calls: [call('slow', {}, 'a'), call('fast', {}, 'b')],
      createId: () => `result_${next++}`,
    });
    expect(results).toEqual([
      {
        kind: 'toolResult',
        id: 'result_0',
        callId: 'a',
        toolName: 'slow',
        content: 'slow',
        isError: false,
      },
      {
        kind: 'toolResult',
        id: 'result_1',
        callId: 'b',
        toolName: 'fast',
        content: 'fast',
        isError: false,
      },
    ]);
  });

  it('times out a tool that ignores its signal, without waiting for it', async () => {
    let seenSignal: AbortSignal | undefined;
    const stuck = defineTool({
      name: 'stuck',
      description: 'Never finishes.',
      parameters: { type: 'object' },
      timeoutMs: 20,
      execute: (_args, { signal }) => {
        seenSignal = signal;
        return forever();
      },
    });
    const [result] = await executeToolCalls({ tools: [stuck, echo], calls: [call('stuck')] });

    expect(result?.isError).toBe(true);
    expect(result?.content).toMatch(/^Error: Tool "stuck" timed out after 20 ms/);
    expect(seenSignal?.aborted).toBe(true);
    expect(seenSignal?.reason).toMatchObject({ name: 'TimeoutError' });
  });

  it('applies defaultTimeoutMs to tools without their own timeout', async () => {
    const stuck = defineTool({
      name: 'stuck',
      description: 'Never finishes.',
      parameters: { type: 'object' },
      execute: forever,
    });
    const [result] = await executeToolCalls({
      tools: [stuck],
      calls: [call('stuck')],
      defaultTimeoutMs: 15,
    });
    expect(result?.content).toMatch(/timed out after 15 ms/);
  });

  it('reports a timeout even when the tool rejects as soon as its signal aborts', async () => {
    const polite = defineTool({
      name: 'polite',
      description: 'Stops when asked.',
      parameters: { type: 'object' },
      timeoutMs: 10,
      execute: (_args, { signal }) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(new Error('stopped')));
        }),
    });
    const [result] = await executeToolCalls({ tools: [polite], calls: [call('polite')] });
    expect(result?.content).toMatch(/timed out after 10 ms/);
  });

  it('resolves unfinished calls promptly as aborted when the run aborts mid-tool', async () => {
    const started = deferred();
    const signals: AbortSignal[] = [];
    const stuck = defineTool({
      name: 'stuck',
      description: 'Ignores its signal.',
      parameters: { type: 'object' },
      execute: (_args, { signal }) => {
        signals.push(signal);
        started.resolve();
        return forever();
      },
    });
    const controller = new AbortController();
    const finished: ToolCallFinishedInfo[] = [];
    const running = executeToolCalls({
      tools: [stuck, echo],
      calls: [call('echo', { text: 'done before the abort' }), call('stuck', {}, 'call_stuck')],
      signal: controller.signal,
      defaultTimeoutMs: 600_000,
      onCallFinished: (info) => finished.push(info),
    });
    await started.promise;
    controller.abort();
    const results = await running;

    expect(results.map(({ callId, content, isError }) => ({ callId, content, isError }))).toEqual([
      { callId: 'call_echo', content: 'done before the abort', isError: false },
      {
        callId: 'call_stuck',
        content:
          'Error: Tool "stuck" was aborted: the run was cancelled before the tool finished, so there is no output.',
        isError: true,
      },
    ]);
    expect(signals[0]?.aborted).toBe(true);
    expect(finished.map((info) => [info.callId, info.isError])).toEqual([
      ['call_echo', false],
      ['call_stuck', true],
    ]);
  });

  it('answers every call as aborted without running any tool when the run is already aborted', async () => {
    const execute = vi.fn(() => 'ran');
    const tool = defineTool({
      name: 'tool',
      description: 'Should not run.',
      parameters: { type: 'object' },
      execute,
    });
    const results = await executeToolCalls({
      tools: [tool],
      calls: [call('tool', {}, 'a'), call('unknown', 'not json', 'b')],
      signal: AbortSignal.abort(),
    });
    expect(execute).not.toHaveBeenCalled();
    expect(results.map((result) => [result.callId, result.isError])).toEqual([
      ['a', true],
      ['b', true],
    ]);
    expect(results.every((result) => result.content.includes('was aborted'))).toBe(true);
  });

  it.each([
    [
      'bad JSON',
      '{"text": "unterminated',
      /^Error: Invalid arguments for tool "echo": not valid JSON \(/,
    ],
    ['a JSON array', '["text"]', /expected a JSON object, got array/],
    ['a JSON string', '"hello"', /expected a JSON object, got string/],
    ['JSON null', 'null', /expected a JSON object, got null/],
    ['a missing required field', { count: 1 }, /missing required property "text"/],
    [
      'a string where a number belongs',
      { text: 'a', ratio: '0.5' },
      /"ratio" must be number, got string/,
    ],
    [
      'a fraction where an integer belongs',
      { text: 'a', count: 1.5 },
      /"count" must be integer, got number/,
    ],
    ['an array where a string belongs', { text: ['a'] }, /"text" must be string, got array/],
    [
      'a value outside the enum',
      { text: 'a', mode: 'shouting' },
      /"mode" must be one of "loud", "quiet", null, got "shouting"/,
    ],
  ])('turns %s into an isError result the model can act on', async (_label, args, message) => {
    const execute = vi.fn();
    const tool = defineTool({ ...echo, execute });
    const [result] = await executeToolCalls({ tools: [tool], calls: [call('echo', args)] });
    expect(result?.isError).toBe(true);
    expect(result?.content).toMatch(message);
    expect(execute).not.toHaveBeenCalled();
  });

  it('matches enum values that are arrays or objects by content, in any key order', async () => {
    const pick = defineTool({
      name: 'pick',
      description: 'Takes one of the listed shapes.',
      parameters: { type: 'object', properties: { shape: { enum: [[1, 2], { a: 1, b: [0] }] } } },
      execute: () => 'ok',
    });
    const shapes = [[1, 2], { b: [0], a: 1 }, { a: 1 }, [2, 1], { a: 1, b: [0], c: 2 }];
    const results = await executeToolCalls({
      tools: [pick],
      calls: shapes.map((shape, index) => call('pick', { shape }, `call_${index}`)),
    });
    expect(results.map((result) => result.isError)).toEqual([false, false, true, true, true]);
  });

  it('lists every argument problem at once', async () => {
    const [result] = await executeToolCalls({
      tools: [echo],
      calls: [call('echo', { count: 'two', mode: 'shouting' })],
    });
    expect(result?.content).toBe(
      'Error: Invalid arguments for tool "echo": missing required property "text"; property "count" must be integer, got string; property "mode" must be one of "loud", "quiet", null, got "shouting". Call the tool again with corrected arguments.',
    );
  });

  it('accepts valid arguments, union types, undeclared properties and unknown type words', async () => {
    const [result] = await executeToolCalls({
      tools: [echo],
      calls: [call('echo', { text: 'ok', count: 2, ratio: 2, mode: null, note: 5, extra: [1] })],
    });
    expect(result).toMatchObject({ content: 'ok', isError: false });
  });

  it('treats empty arguments as an empty object', async () => {
    const tool = defineTool({
      name: 'now',
      description: 'No parameters.',
      parameters: { type: 'object', properties: {} },
      execute: (args) => args,
    });
    const [result] = await executeToolCalls({ tools: [tool], calls: [call('now', '')] });
    expect(result).toMatchObject({ content: '{}', isError: false });
  });

  it('turns an unknown tool name into an isError result that lists the available tools', async () => {
    const [result] = await executeToolCalls({ tools: [echo], calls: [call('ecko')] });
    expect(result).toMatchObject({
      toolName: 'ecko',
      isError: true,
      content: 'Error: Unknown tool "ecko". Available tools: echo. Call one of these instead.',
    });
  });

  it.each([
    [
      'an Error',
      () => Promise.reject(new Error('disk full')),
      'Error: Tool "boom" failed: disk full',
    ],
    [
      'a TypeError',
      () => {
        throw new TypeError('x is not a function');
      },
      'Error: Tool "boom" failed: TypeError: x is not a function',
    ],
    [
      'a string',
      () => {
        throw 'plain string';
      },
      'Error: Tool "boom" failed: plain string',
    ],
    [
      'an object',
      () => Promise.reject({ status: 503 }),
      'Error: Tool "boom" failed: {"status":503}',
    ],
  ])('turns %s thrown by a tool into an isError result', async (_label, execute, content) => {
    const boom = defineTool({
      name: 'boom',
      description: 'Fails.',
      parameters: { type: 'object' },
      execute,
    });
    const results = await executeToolCalls({
      tools: [boom, echo],
      calls: [call('boom'), call('echo', { text: 'unaffected' })],
    });
    expect(results.map(({ content, isError }) => ({ content, isError }))).toEqual([
      { content, isError: true },
      { content: 'unaffected', isError: false },
    ]);
  });

  it.each([
    ['an object', { a: [1, 'two'] }, '{"a":[1,"two"]}'],
    ['a number', 42, '42'],
    ['null', null, 'null'],
    ['undefined', undefined, ''],
    ['a function', () => 1, ''],
  ])('encodes %s returned by a tool', async (_label, output, content) => {
    const tool = defineTool({
      name: 'value',
      description: 'Returns a value.',
      parameters: { type: 'object' },
      execute: async () => output,
    });
    const [result] = await executeToolCalls({ tools: [tool], calls: [call('value')] });
    expect(result).toMatchObject({ content, isError: false });
  });

  it('reports output that cannot be JSON-encoded as an error', async () => {
    const circular: { self?: unknown } = {};
    circular.self = circular;
    const tool = defineTool({
      name: 'value',
      description: 'Returns a cycle.',
      parameters: { type: 'object' },
      execute: () => circular,
    });
    const [result] = await executeToolCalls({ tools: [tool], calls: [call('value')] });
    expect(result?.isError).toBe(true);
    expect(result?.content).toMatch(
      /^Tool "value" returned a value that cannot be encoded as JSON/,
    );
  });

  it('passes a 10 MB output through unchanged', async () => {
    const big = 'x'.repeat(10 * 1024 * 1024 - 3).concat('end');
    const tool = defineTool({
      name: 'dump',
      description: 'Returns a lot.',
      parameters: { type: 'object' },
      execute: () => big,
    });
    const [result] = await executeToolCalls({ tools: [tool], calls: [call('dump')] });
    expect(result?.isError).toBe(false);
    expect(result?.content.length).toBe(10 * 1024 * 1024);
    expect(result?.content === big).toBe(true);
  });

  it('gives a tool that reads its signal late one that already shows the timeout or the abort', async () => {
    let timedOutOptions: { signal: AbortSignal } | undefined;
    const slow = defineTool({
      name: 'slow',
      description: 'Looks at its signal only after the deadline.',
      parameters: { type: 'object' },
      timeoutMs: 10,
      execute: (_args, options) => {
        timedOutOptions = options;
        return forever();
      },
    });
    await executeToolCalls({ tools: [slow], calls: [call('slow')] });
    expect(timedOutOptions?.signal.aborted).toBe(true);
    expect(timedOutOptions?.signal.reason).toMatchObject({ name: 'TimeoutError' });

    const run = new AbortController();
    let abortedOptions: { signal: AbortSignal } | undefined;
    const waits = defineTool({
      name: 'waits',
      description: 'Never finishes.',
      parameters: { type: 'object' },
      execute: (_args, options) => {
        abortedOptions = options;
        return forever();
      },
    });
    const pending = executeToolCalls({
      tools: [waits],
      calls: [call('waits')],
      signal: run.signal,
    });
    run.abort(new Error('host stopped'));
    await pending;
    expect(abortedOptions?.signal.aborted).toBe(true);
    expect(abortedOptions?.signal.reason).toMatchObject({ message: 'host stopped' });
  });

  it('passes the call id, a signal and reportProgress to execute', async () => {
    const execute = vi.fn(() => 'ok');
    const tool = defineTool({
      name: 'spy',
      description: 'Spy.',
      parameters: { type: 'object' },
      execute,
    });
    await executeToolCalls({ tools: [tool], calls: [call('spy', { a: 1 }, 'call_42')] });
    expect(execute).toHaveBeenCalledWith(
      { a: 1 },
      { callId: 'call_42', signal: expect.any(AbortSignal), reportProgress: expect.any(Function) },
    );
  });

  it('calls onCallStarted then onCallFinished once per call, and survives throwing callbacks', async () => {
    const seen: string[] = [];
    const callbackErrors: unknown[] = [];
    const results = await executeToolCalls({
      tools: [echo],
      calls: [call('echo', { text: 'a' }, 'a'), call('nope', {}, 'b')],
      onCallStarted: ({ callId, toolName }) => {
        seen.push(`started ${callId} ${toolName}`);
        throw new Error('started callback broke');
      },
      onCallFinished: ({ callId, isError, durationMs }) => {
        seen.push(`finished ${callId} ${isError} ${durationMs >= 0}`);
        throw new Error('finished callback broke');
      },
      onCallbackError: (error) => callbackErrors.push(error),
    });
    expect(results.map((result) => result.isError)).toEqual([false, true]);
    // Calls start in call order; each finishes after it started, in whatever order they complete.
    expect(seen.slice(0, 2)).toEqual(['started a echo', 'started b nope']);
    expect([...seen.slice(2)].sort()).toEqual(['finished a false true', 'finished b true true']);
    expect(callbackErrors).toHaveLength(4);
  });

  it('logs throwing callbacks with console.error by default', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const [result] = await executeToolCalls({
        tools: [echo],
        calls: [call('echo', { text: 'a' })],
        onCallStarted: () => {
          throw new Error('broken telemetry');
        },
      });
      expect(result?.isError).toBe(false);
      expect(consoleError).toHaveBeenCalledTimes(1);
    } finally {
      consoleError.mockRestore();
    }
  });

  it('refuses bad options with typed errors', async () => {
    await expect(
      executeToolCalls({ tools: [echo], calls: [], defaultTimeoutMs: 0 }),
    ).rejects.toThrowError(ConfigError);
    await expect(executeToolCalls({ tools: [echo, echo], calls: [] })).rejects.toThrowError(
      /Two tools are named "echo"/,
    );
  });

  it('answers each call exactly once, in call order, whatever the model sends (property)', async () => {
    const callArbitrary = fc.record({
      id: fc.string({ minLength: 1, maxLength: 8 }),
      name: fc.constantFrom('echo', 'boom', 'missing'),
      arguments: fc.oneof(
        fc.string(),
        fc.jsonValue().map((value) => JSON.stringify(value)),
        fc
          .record({ text: fc.oneof(fc.string(), fc.integer()) })
          .map((value) => JSON.stringify(value)),
      ),
    });
    const boom = defineTool({
      name: 'boom',
      description: 'Fails.',
      parameters: { type: 'object' },
      execute: () => {
        throw new Error('boom');
      },
    });
    await fc.assert(
      fc.asyncProperty(fc.array(callArbitrary, { maxLength: 6 }), async (calls) => {
        const results = await executeToolCalls({ tools: [echo, boom], calls });
        expect(results.map((result) => [result.callId, result.toolName])).toEqual(
          calls.map((entry) => [entry.id, entry.name]),
        );
        expect(new Set(results.map((result) => result.id)).size).toBe(results.length);
        for (const [index, result] of results.entries()) {
          const entry = calls[index];
          if (entry?.name !== 'echo') {
            expect(result.isError).toBe(true);
          }
          expect(typeof result.content).toBe('string');
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('createAbortedToolResults', () => {
  it('answers calls that never ran with aborted isError results', () => {
    const results = createAbortedToolResults({
      calls: [call('echo', {}, 'a'), call('other', {}, 'b')],
      createId: () => 'same',
    });
    expect(results).toEqual([
      {
        kind: 'toolResult',
        id: 'same',
        callId: 'a',
        toolName: 'echo',
        content: expect.stringContaining('was aborted'),
        isError: true,
      },
      {
        kind: 'toolResult',
        id: 'same',
        callId: 'b',
        toolName: 'other',
        content: expect.stringContaining('was aborted'),
        isError: true,
      },
    ]);
  });
});
