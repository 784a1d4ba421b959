import type { AgentInputItem } from '@openai/agents';
import type { ModelMessage } from 'ai';
import {
  createAgentLoop,
  MemorySessionStore,
  type ModelAdapter,
  runTurn,
} from '../../../src/index.js';
import { createReplayTools, QUALITY_INSTRUCTIONS } from '../../../src/testing/index.js';
import { defaultCompactor } from '../loopkeeper-actor.js';
import type { StepClock, StepScript } from './script.js';

/** Replays the whole script through one framework's own loop, the clock timing its steps. */
export type Contender = (script: StepScript, clock: StepClock) => Promise<void>;

/** The window loopkeeper's default compactor is given (the peers keep every message). */
export const STEPS_WINDOW = 200_000;

function outputOf(script: StepScript, callId: string | undefined): string {
  const output = callId === undefined ? undefined : script.outputs.get(callId);
  if (output === undefined) throw new Error(`bench: no recorded output for call ${callId}`);
  if (output.isError) throw new Error(output.content);
  return output.content;
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? parsed : { value: parsed };
  } catch {
    return { raw: text };
  }
}

const loopkeeper: Contender = async (script, clock) => {
  const model: ModelAdapter = {
    name: 'bench-scripted',
    model: 'scripted',
    async generate() {
      clock.called();
      const answer = clock.next(script.answers);
      clock.answered();
      return {
        model: 'scripted',
        ...(answer.text === undefined ? {} : { text: answer.text }),
        ...(answer.toolCalls.length === 0 ? {} : { toolCalls: answer.toolCalls }),
        finishReason: answer.toolCalls.length === 0 ? 'stop' : 'tool_calls',
      };
    },
  };
  const loop = createAgentLoop({
    model,
    tools: createReplayTools({ toolNames: script.toolNames, outputs: script.outputs }),
    instructions: QUALITY_INSTRUCTIONS,
    compactor: defaultCompactor({ window: STEPS_WINDOW }),
    store: new MemorySessionStore(),
    maxStepsPerRun: 100_000,
  });
  loop.start();
  for (const turn of script.turns) {
    const finished = await runTurn(loop, turn);
    if (finished.outcome !== 'completed')
      throw new Error(`bench: a turn ended ${finished.outcome}`);
  }
  loop.stop();
};

async function aiSdk(script: StepScript, clock: StepClock, prune: boolean): Promise<void> {
  const { generateText, jsonSchema, pruneMessages, stepCountIs, tool } = await import('ai');
  type Model = Parameters<typeof generateText>[0]['model'];
  const usage = {
    inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 0, text: 0, reasoning: 0 },
  };
  // A bare LanguageModelV3 (the SDK's own mock keeps every call's prompt, which memory would count).
  const model = {
    specificationVersion: 'v3',
    provider: 'bench',
    modelId: 'scripted',
    supportedUrls: {},
    async doGenerate() {
      clock.called();
      const answer = clock.next(script.answers);
      clock.answered();
      return {
        content: [
          ...(answer.text === undefined ? [] : [{ type: 'text' as const, text: answer.text }]),
          ...answer.toolCalls.map((call) => ({
            type: 'tool-call' as const,
            toolCallId: call.id,
            toolName: call.name,
            input: call.arguments,
          })),
        ],
        finishReason: {
          unified: answer.toolCalls.length === 0 ? ('stop' as const) : ('tool-calls' as const),
          raw: undefined,
        },
        usage,
        warnings: [],
      };
    },
    async doStream() {
      throw new Error('bench: no streaming');
    },
  } as unknown as Model;
  const schema = jsonSchema<Record<string, unknown>>({
    type: 'object',
    additionalProperties: true,
  });
  const tools = Object.fromEntries(
    script.toolNames.map((name) => [
      name,
      tool({
        description: name,
        inputSchema: schema,
        execute: async (_input: Record<string, unknown>, { toolCallId }: { toolCallId: string }) =>
          outputOf(script, toolCallId),
      }),
    ]),
  );
  const history: ModelMessage[] = [];
  for (const turn of script.turns) {
    history.push({ role: 'user', content: turn });
    const result = await generateText({
      model,
      system: QUALITY_INSTRUCTIONS,
      tools,
      messages: history,
      stopWhen: stepCountIs(100_000),
      ...(prune
        ? {
            prepareStep: ({ messages }: { messages: ModelMessage[] }) => ({
              messages: pruneMessages({
                messages,
                reasoning: 'before-last-message',
                toolCalls: 'before-last-2-messages',
              }),
            }),
          }
        : {}),
    });
    history.push(...result.response.messages);
  }
}

const langGraph: Contender = async (script, clock) => {
  const { createReactAgent } = await import('@langchain/langgraph/prebuilt');
  const { BaseChatModel } = await import('@langchain/core/language_models/chat_models');
  const { AIMessage, HumanMessage } = await import('@langchain/core/messages');
  const { tool } = await import('@langchain/core/tools');
  const { z } = await import('zod');
  type Messages = InstanceType<typeof HumanMessage>[];

  class ScriptedChat extends BaseChatModel {
    _llmType(): string {
      return 'scripted';
    }
    override bindTools(): this {
      return this;
    }
    async _generate() {
      clock.called();
      const answer = clock.next(script.answers);
      const message = new AIMessage({
        content: answer.text ?? '',
        tool_calls: answer.toolCalls.map((call) => ({
          id: call.id,
          name: call.name,
          args: parseArguments(call.arguments),
          type: 'tool_call' as const,
        })),
      });
      clock.answered();
      return { generations: [{ text: answer.text ?? '', message }] };
    }
  }

  const tools = script.toolNames.map((name) =>
    tool(
      async (_input: unknown, config: { toolCall?: { id?: string } }) =>
        outputOf(script, config.toolCall?.id),
      { name, description: name, schema: z.looseObject({}) },
    ),
  );
  const agent = createReactAgent({
    llm: new ScriptedChat({}),
    tools,
    prompt: QUALITY_INSTRUCTIONS,
  });
  let history: Messages = [];
  for (const turn of script.turns) {
    const result = await agent.invoke(
      { messages: [...history, new HumanMessage(turn)] },
      { recursionLimit: 1_000_000 },
    );
    history = result.messages as Messages;
  }
};

const openAIAgents: Contender = async (script, clock) => {
  process.env['OPENAI_AGENTS_DISABLE_TRACING'] = '1';
  const { Agent, run, setTracingDisabled, tool, Usage, user } = await import('@openai/agents');
  setTracingDisabled(true);
  const model = {
    async getResponse() {
      clock.called();
      const answer = clock.next(script.answers);
      const output = [
        ...(answer.text === undefined
          ? []
          : [
              {
                type: 'message' as const,
                role: 'assistant' as const,
                status: 'completed' as const,
                content: [{ type: 'output_text' as const, text: answer.text }],
              },
            ]),
        ...answer.toolCalls.map((call) => ({
          type: 'function_call' as const,
          callId: call.id,
          name: call.name,
          arguments: call.arguments,
          status: 'completed' as const,
        })),
      ];
      clock.answered();
      return { usage: new Usage(), output };
    },
    // biome-ignore lint/correctness/useYield: the bench never streams
    async *getStreamedResponse(): AsyncIterable<never> {
      throw new Error('bench: no streaming');
    },
  };
  const agent = new Agent({
    name: 'bench',
    instructions: QUALITY_INSTRUCTIONS,
    model,
    tools: script.toolNames.map((name) =>
      tool({
        name,
        description: name,
        parameters: { type: 'object', properties: {}, required: [], additionalProperties: true },
        strict: false,
        execute: async (
          _input: unknown,
          _context: unknown,
          details?: { toolCall?: { callId?: string } },
        ) => outputOf(script, details?.toolCall?.callId),
      }),
    ),
  });
  let history: AgentInputItem[] = [];
  for (const turn of script.turns) {
    const result = await run(agent, [...history, user(turn)], { maxTurns: 1_000_000 });
    history = result.history;
  }
};

export const CONTENDERS = {
  loopkeeper: {
    label: '**loopkeeper** actor, default compactor',
    note: '`createAgentLoop` + `createCompactor` (`contextWindowTrigger({window: 200,000})`, `extractiveSummarizer`), memory store, replay tools',
    run: loopkeeper,
  },
  'ai-sdk': {
    label: 'AI SDK `generateText`',
    note: 'one call per user turn, `stopWhen: stepCountIs(100,000)`, the whole history every step',
    run: (script: StepScript, clock: StepClock) => aiSdk(script, clock, false),
  },
  'ai-sdk-prune': {
    label: 'AI SDK `generateText` + `pruneMessages` in `prepareStep`',
    note: 'the same with the documented `prepareStep` pruning (reasoning before the last message, tool calls before the last 2)',
    run: (script: StepScript, clock: StepClock) => aiSdk(script, clock, true),
  },
  langgraph: {
    label: 'LangGraph `createReactAgent`',
    note: 'the prebuilt agent, `invoke` per user turn with the history so far, a `BaseChatModel` that answers from the script',
    run: langGraph,
  },
  'openai-agents': {
    label: 'openai-agents-js `run()`',
    note: '`run(agent, history)` per user turn, a custom `Model`, tracing off',
    run: openAIAgents,
  },
} as const satisfies Record<string, { label: string; note: string; run: Contender }>;

export type ContenderName = keyof typeof CONTENDERS;
