import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import {
  AIMessage,
  type AIMessageFields,
  type BaseMessage,
  HumanMessage,
} from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { createAgent, tool } from 'langchain';
import {
  type CompactionBackend,
  contextWindowTrigger,
  createCompactor,
  createTokenCounter,
  effectiveHistory,
  extractiveSummarizer,
  MemorySessionStore,
  type SessionEvent,
} from 'loopkeeper';
import { type CompactionRecord, compactionMiddleware } from 'loopkeeper/langchain';
import type { TokenCounter } from 'loopkeeper/tokens';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

const WINDOW = 16_000;
const STEPS = 200;
let tokens: TokenCounter;

beforeAll(async () => {
  tokens = await createTokenCounter();
});

const textCounts = new Map<string, number>();
function countText(text: string): number {
  let count = textCounts.get(text);
  if (count === undefined) {
    count = tokens.countText(text);
    textCounts.set(text, count);
  }
  return count;
}

/** A prompt as the fake model saw it: each message's JSON, its tool calls and results, its tokens. */
interface SeenPrompt {
  readonly json: readonly string[];
  readonly messages: readonly BaseMessage[];
  readonly tokens: number;
}

function messageTokens(message: BaseMessage): number {
  const calls = message.getType() === 'ai' ? ((message as AIMessage).tool_calls ?? []) : [];
  return (
    4 +
    countText(message.text) +
    calls.reduce((sum, call) => sum + countText(JSON.stringify(call.args)), 0)
  );
}

/** A chat model that reads one file per call (two on every seventh), then answers at STEPS. */
class FileReadingModel extends BaseChatModel {
  readonly prompts: SeenPrompt[] = [];

  _llmType(): string {
    return 'file-reading-fake';
  }

  override bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const seen = {
      messages,
      json: messages.map((message) => JSON.stringify(message.toDict())),
      tokens: messages.reduce((sum, message) => sum + messageTokens(message), 0),
    };
    this.prompts.push(seen);
    const step = this.prompts.length;
    const ids = step >= STEPS ? [] : step % 7 === 0 ? [`${step}a`, `${step}b`] : [`${step}`];
    const message = new AIMessage({
      content: step >= STEPS ? 'Done.' : `Reading file ${step}.`,
      tool_calls: ids.map((id) => ({
        id: `call-${id}`,
        name: 'read_file',
        args: { path: `src/file-${id}.ts` },
        type: 'tool_call' as const,
      })),
      usage_metadata: {
        input_tokens: seen.tokens,
        output_tokens: 30,
        total_tokens: seen.tokens + 30,
      },
      response_metadata: { model_name: 'fake-reader' },
      // LangChain's inferred field types say usage_metadata is undefined under this compiler.
    } as unknown as AIMessageFields);
    return { generations: [{ text: message.text, message }] };
  }
}

function fileText(path: string): string {
  return Array.from(
    { length: 40 },
    (_, line) => `${path}:${line + 1} export const value${line} = compute('${path}', ${line * 7});`,
  ).join('\n');
}

describe('compactionMiddleware in a 200-call createAgent run', () => {
  const model = new FileReadingModel({});
  const compactionSteps: number[] = [];
  let summaries = 0;
  const events: SessionEvent[] = [];
  let middleware: ReturnType<typeof compactionMiddleware>;
  let finalMessages: BaseMessage[] = [];

  beforeAll(async () => {
    const extractive = extractiveSummarizer();
    const counting: CompactionBackend = {
      ...extractive,
      summarize: (request) => {
        summaries += 1;
        return extractive.summarize(request);
      },
    };
    const store = new MemorySessionStore();
    middleware = compactionMiddleware({
      compactor: createCompactor({
        trigger: contextWindowTrigger({ window: WINDOW, percent: 80 }),
        // The former defaults: these runs check compaction and its records, not the output cap.
        toolOutputLimit: false,
        backend: counting,
      }),
      tokens,
      store,
      sessionId: 'langchain-run',
      onCompaction: (record: CompactionRecord) => compactionSteps.push(record.stepNumber),
    });
    const readFile = tool(async ({ path }: { path: string }) => fileText(path), {
      name: 'read_file',
      description: 'Read a file',
      schema: z.object({ path: z.string() }),
    });
    const agent = createAgent({
      model,
      tools: [readFile],
      systemPrompt: 'You read files.',
      middleware: [middleware],
    });
    const result = await agent.invoke(
      {
        messages: [
          new HumanMessage('Read every file of the project and report what each exports.'),
        ],
      },
      { recursionLimit: 4 * STEPS },
    );
    finalMessages = result.messages;
    for await (const event of store.read('langchain-run')) events.push(event);
  }, 120_000);

  it('keeps every counted prompt under the window', () => {
    expect(model.prompts).toHaveLength(STEPS);
    expect(Math.max(...model.prompts.map((prompt) => prompt.tokens))).toBeLessThan(WINDOW);
    const uncompacted = finalMessages.reduce((sum, message) => sum + messageTokens(message), 0);
    expect(uncompacted).toBeGreaterThan(5 * WINDOW);
  });

  it('compacts rarely and summarizes a bounded number of times, not once per call', () => {
    expect(compactionSteps.length).toBeGreaterThan(0);
    expect(compactionSteps.length).toBeLessThan(STEPS / 4);
    expect(summaries).toBeGreaterThan(0);
    expect(summaries).toBeLessThanOrEqual(compactionSteps.length);
  });

  it('sends every tool call with its result, and no result without its call', () => {
    const problems: string[] = [];
    for (const [index, prompt] of model.prompts.entries()) {
      const open = new Set<string>();
      for (const message of prompt.messages) {
        if (message.getType() === 'tool') {
          const callId = (message as unknown as { tool_call_id: string }).tool_call_id;
          if (!open.delete(callId))
            problems.push(`prompt ${index}: result ${callId} without its call`);
          continue;
        }
        if (open.size > 0) problems.push(`prompt ${index}: ${[...open]} unanswered`);
        open.clear();
        if (message.getType() === 'ai')
          for (const call of (message as AIMessage).tool_calls ?? []) open.add(call.id ?? '');
      }
      if (open.size > 0) problems.push(`prompt ${index}: ${[...open]} unanswered at the end`);
    }
    expect(problems).toEqual([]);
  });

  it('keeps each request a prefix-extension of the previous one between compactions', () => {
    const breaks: number[] = [];
    for (let step = 1; step < model.prompts.length; step += 1) {
      const previous = model.prompts[step - 1] as SeenPrompt;
      const current = model.prompts[step] as SeenPrompt;
      const extended =
        current.json.length > previous.json.length &&
        previous.json.every((json, index) => current.json[index] === json);
      if (!extended) breaks.push(step);
    }
    expect(breaks).toEqual(compactionSteps);
  });

  it('records the run, so the log projects to the history', () => {
    expect(events[0]?.type).toBe('run-started');
    expect(events[events.length - 1]).toMatchObject({
      type: 'run-finished',
      outcome: 'completed',
      steps: STEPS,
    });
    expect(events.filter((event) => event.type === 'transcript-replaced')).toHaveLength(
      compactionSteps.length,
    );
    expect(effectiveHistory(events)).toEqual(JSON.parse(JSON.stringify(middleware.history())));
  });
});
