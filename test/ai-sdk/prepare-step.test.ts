import type { LanguageModelV3CallOptions, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import {
  contextWindowTrigger,
  createCompactor,
  createTokenCounter,
  effectiveHistory,
  MemorySessionStore,
  type SessionEvent,
} from 'loopkeeper';
import {
  aiSdkSummarizer,
  type CompactionRecord,
  compactionPrepareStep,
  toModelMessages,
} from 'loopkeeper/ai-sdk';
import { SUMMARY_SECTIONS } from 'loopkeeper/compaction';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildSessionAudit } from '../../src/cli/show/session-audit.js';

const WINDOW = 16_000;
const STEPS = 200;
let tokens: TokenCounter;

beforeAll(async () => {
  tokens = await createTokenCounter();
});

const textCounts = new Map<string, number>();
/** Tokens of a text, remembered: prompts repeat the same outputs step after step. */
function countText(text: string): number {
  let count = textCounts.get(text);
  if (count === undefined) {
    count = tokens.countText(text);
    textCounts.set(text, count);
  }
  return count;
}

type PromptMessage = LanguageModelV3Prompt[number];

/** Tokens of one message: every text, input and output it carries, plus 4. */
function messageTokens(message: PromptMessage): number {
  if (typeof message.content === 'string') return 4 + countText(message.content);
  let total = 4;
  for (const part of message.content) {
    if (part.type === 'text' || part.type === 'reasoning') total += countText(part.text);
    else if (part.type === 'tool-call') total += countText(JSON.stringify(part.input));
    else if (part.type === 'tool-result') total += countText(JSON.stringify(part.output));
  }
  return total;
}

/** A prompt as the mock model saw it: each message's JSON (for prefix checks) and its tokens. */
interface SeenPrompt {
  readonly messages: readonly PromptMessage[];
  readonly json: readonly string[];
  readonly tokens: number;
}

function seePrompt(prompt: LanguageModelV3Prompt): SeenPrompt {
  return {
    messages: structuredClone(prompt),
    json: prompt.map((message) => JSON.stringify(message)),
    tokens: prompt.reduce((sum, message) => sum + messageTokens(message), 0),
  };
}

/** A big, varied tool output (~650 tokens), different for each path. */
function fileText(path: string): string {
  return Array.from(
    { length: 40 },
    (_, line) => `${path}:${line + 1} export const value${line} = compute('${path}', ${line * 7});`,
  ).join('\n');
}

interface Run {
  readonly prompts: SeenPrompt[];
  readonly compactionSteps: number[];
  readonly summaries: number;
  readonly events: SessionEvent[];
  readonly prepareStep: ReturnType<typeof compactionPrepareStep>;
  readonly finalMessages: Awaited<ReturnType<typeof generateText>>['response']['messages'];
}

async function run(): Promise<Run> {
  const prompts: SeenPrompt[] = [];
  let summaries = 0;
  const summarizer = new MockLanguageModelV3({
    modelId: 'mock-summarizer',
    doGenerate: async () => {
      summaries += 1;
      return {
        content: [
          {
            type: 'text',
            text: SUMMARY_SECTIONS.map((section) => `## ${section}\nNoted.`).join('\n\n'),
          },
        ],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: usage(500, 60),
        warnings: [],
      };
    },
  });
  const model = new MockLanguageModelV3({
    modelId: 'mock-agent',
    doGenerate: async (options: LanguageModelV3CallOptions) => {
      const seen = seePrompt(options.prompt);
      prompts.push(seen);
      const step = prompts.length;
      const calls = step % 7 === 0 ? [`${step}a`, `${step}b`] : [`${step}`];
      return {
        content: [
          {
            type: 'reasoning',
            text: `Step ${step}: read the next file.`,
            providerMetadata: { anthropic: { signature: `sig-${step}` } },
          },
          ...calls.map((id) => ({
            type: 'tool-call' as const,
            toolCallId: `call-${id}`,
            toolName: 'read_file',
            input: JSON.stringify({ path: `src/file-${id}.ts` }),
          })),
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: usage(seen.tokens, 40),
        warnings: [],
      };
    },
  });
  const compactionSteps: number[] = [];
  const store = new MemorySessionStore();
  const prepareStep = compactionPrepareStep({
    compactor: createCompactor({
      trigger: contextWindowTrigger({ window: WINDOW, percent: 80 }),
      // The former defaults: these runs check compaction and its records, not the output cap.
      toolOutputLimit: false,
      backend: aiSdkSummarizer({ model: summarizer }),
    }),
    tokens,
    store,
    sessionId: 'ai-sdk-run',
    onCompaction: (record: CompactionRecord) => compactionSteps.push(record.stepNumber),
  });
  const result = await generateText({
    model,
    system: 'You read files.',
    prompt: 'Read every file of the project and report what each exports.',
    tools: {
      read_file: tool({
        description: 'Read a file',
        inputSchema: z.object({ path: z.string() }),
        execute: async ({ path }) => fileText(path),
      }),
    },
    stopWhen: stepCountIs(STEPS),
    prepareStep,
    onFinish: prepareStep.onFinish,
  });
  const events: SessionEvent[] = [];
  for await (const event of store.read('ai-sdk-run')) events.push(event);
  return {
    prompts,
    compactionSteps,
    summaries,
    events,
    prepareStep,
    finalMessages: result.response.messages,
  };
}

function usage(input: number, output: number) {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

describe('compactionPrepareStep in a 200-step generateText', () => {
  let result: Run;
  beforeAll(async () => {
    result = await run();
  }, 60_000);

  it('keeps every counted prompt under the window', () => {
    expect(result.prompts).toHaveLength(STEPS);
    const largest = Math.max(...result.prompts.map((prompt) => prompt.tokens));
    expect(largest).toBeLessThan(WINDOW);
    // Without compaction the last prompt would hold every output: many windows.
    const outputs = result.finalMessages.flatMap((message) =>
      message.role === 'tool' ? message.content : [],
    );
    const uncompacted = outputs.reduce(
      (sum, part) =>
        sum + (part.type === 'tool-result' ? countText(JSON.stringify(part.output)) : 0),
      0,
    );
    expect(uncompacted).toBeGreaterThan(5 * WINDOW);
  });

  it('compacts rarely and calls the summarizer a bounded number of times, not once per step', () => {
    const compactions = result.compactionSteps.length;
    expect(compactions).toBeGreaterThan(0);
    expect(compactions).toBeLessThan(STEPS / 4);
    expect(result.summaries).toBeGreaterThan(0);
    expect(result.summaries).toBeLessThanOrEqual(compactions);
  });

  it('sends every tool call with its result, and no result without its call', () => {
    const problems: string[] = [];
    let calls = 0;
    for (const [index, prompt] of result.prompts.entries()) {
      const open = new Set<string>();
      for (const message of prompt.messages) {
        if (message.role === 'tool') {
          for (const part of message.content) {
            if (part.type === 'tool-result' && !open.delete(part.toolCallId)) {
              problems.push(`prompt ${index}: result ${part.toolCallId} without its call`);
            }
          }
          continue;
        }
        if (open.size > 0) problems.push(`prompt ${index}: ${[...open]} unanswered`);
        open.clear();
        if (message.role !== 'assistant') continue;
        for (const part of message.content) {
          if (part.type !== 'tool-call') continue;
          open.add(part.toolCallId);
          calls += 1;
        }
      }
      if (open.size > 0) problems.push(`prompt ${index}: ${[...open]} unanswered at the end`);
    }
    expect(problems).toEqual([]);
    expect(calls).toBeGreaterThan(STEPS);
  });

  it('keeps each request a prefix-extension of the previous one between compactions', () => {
    const breaks: number[] = [];
    for (let step = 1; step < result.prompts.length; step += 1) {
      const previous = result.prompts[step - 1] as SeenPrompt;
      const current = result.prompts[step] as SeenPrompt;
      const extended =
        current.json.length > previous.json.length &&
        previous.json.every((json, index) => current.json[index] === json);
      if (!extended) breaks.push(step);
    }
    expect(breaks).toEqual(result.compactionSteps);
  });

  it('sends the newest reasoning with its provider data, as the model wrote it', () => {
    for (const [index, prompt] of result.prompts.entries()) {
      if (index === 0) continue;
      const assistants = prompt.messages.filter((message) => message.role === 'assistant');
      const newest = assistants[assistants.length - 1];
      expect(newest?.content[0]).toEqual({
        type: 'reasoning',
        text: `Step ${index}: read the next file.`,
        providerOptions: { anthropic: { signature: `sig-${index}` } },
      });
    }
  });

  it('records every step and compaction, so the log projects to the history and show reads it', () => {
    const { events, prepareStep } = result;
    expect(events[0]?.type).toBe('run-started');
    expect(events[events.length - 1]).toMatchObject({
      type: 'run-finished',
      outcome: 'completed',
      steps: STEPS,
    });
    const markers = events.filter((event) => event.type === 'transcript-replaced');
    expect(markers).toHaveLength(result.compactionSteps.length);
    expect(events.filter((event) => event.type === 'usage-reported')).toHaveLength(STEPS);
    const history = effectiveHistory(events);
    expect(history).toEqual(JSON.parse(JSON.stringify(prepareStep.history())));
    // The log alone gives back the messages of the last request plus the final step.
    const last = result.prompts[result.prompts.length - 1] as SeenPrompt;
    expect(toModelMessages({ items: history }).length).toBeGreaterThan(last.messages.length - 2);
    const audit = buildSessionAudit({ sessionId: 'ai-sdk-run', events, tokens });
    expect(audit.unfinishedRun).toBeNull();
    expect(audit.entries).toHaveLength(events.length);
  });
});

describe("compactionPrepareStep with the compactor's tool-output cap", () => {
  const bigOutput = [
    '$ pytest tests/test_fields.py',
    ...Array.from({ length: 400 }, (_, index) => `collected item ${index} in tests/test_fields.py`),
    'TypeError: unsupported operand in src/marshmallow/fields.py line 1474',
    '1 failed, 399 passed',
  ].join('\n');
  const messages = [
    { role: 'user' as const, content: 'Why does the test fail?' },
    {
      role: 'assistant' as const,
      content: [
        {
          type: 'tool-call' as const,
          toolCallId: 'c1',
          toolName: 'bash',
          input: { cmd: 'pytest' },
        },
      ],
    },
    {
      role: 'tool' as const,
      content: [
        {
          type: 'tool-result' as const,
          toolCallId: 'c1',
          toolName: 'bash',
          output: { type: 'text' as const, value: bigOutput },
        },
      ],
    },
  ];

  it('sends a new output over the default cap clipped; the SDK list and the log keep it whole', async () => {
    const window = 20_000;
    expect(tokens.countText(bigOutput)).toBeGreaterThan(window * 0.055);
    const store = new MemorySessionStore();
    const prepareStep = compactionPrepareStep({
      compactor: createCompactor({ trigger: contextWindowTrigger({ window }) }),
      tokens,
      store,
      sessionId: 'capped',
    });
    const { messages: sent } = await prepareStep({ messages, stepNumber: 0, steps: [] });
    const toolPart = sent.at(-1)?.content;
    const output = Array.isArray(toolPart)
      ? (toolPart[0] as { output?: unknown }).output
      : undefined;
    const text = JSON.stringify(output);
    expect(tokens.countText(text)).toBeLessThanOrEqual(window * 0.055 + 20);
    expect(text).toContain('1 failed, 399 passed');
    expect(text).toContain('src/marshmallow/fields.py');
    // The SDK's own list is not touched.
    expect(JSON.stringify(messages[2])).toContain('collected item 200 in');
    expect(prepareStep.compactions()).toBe(0);
    const events: SessionEvent[] = [];
    for await (const event of store.read('capped')) events.push(event);
    const logged = events.flatMap((event) => (event.type === 'items-appended' ? event.items : []));
    expect(logged.some((item) => item.kind === 'toolResult' && item.content === bigOutput)).toBe(
      true,
    );
    expect(events.filter((event) => event.type === 'transcript-replaced')).toMatchObject([
      { tier: 'mutator', strategies: ['toolOutputLimit'] },
    ]);
    expect(effectiveHistory(events)).toEqual(prepareStep.history());
  });

  it('with `toolOutputLimit: false` sends it whole', async () => {
    const prepareStep = compactionPrepareStep({
      compactor: createCompactor({
        trigger: contextWindowTrigger({ window: 20_000 }),
        toolOutputLimit: false,
      }),
      tokens,
    });
    const { messages: sent } = await prepareStep({ messages, stepNumber: 0, steps: [] });
    expect(JSON.stringify(sent.at(-1))).toContain('collected item 200 in');
  });
});
