/**
 * The quality measurement of `measureCompactionQuality`, with the replay run through the AI
 * SDK's own loop instead of loopkeeper's: `generateText` with the SDK's mock model answering as
 * recorded, tools giving the recorded outputs, and `compactionPrepareStep` compacting before
 * every step. One `generateText` call per recorded user turn, the conversation carried over as
 * a chat app carries it (its messages plus each call's `response.messages`).
 */
import { generateText, jsonSchema, type ModelMessage, stepCountIs, type ToolSet, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { compactionPrepareStep } from '../../src/ai-sdk/index.js';
import { createCompactor } from '../../src/compaction/compactor.js';
import { contextWindowTrigger } from '../../src/compaction/triggers/context-window-trigger.js';
import type { CompactionBackend } from '../../src/compaction/types.js';
import { MemorySessionStore } from '../../src/log/memory-store.js';
import {
  type CompactionQualityReport,
  QUALITY_INSTRUCTIONS,
} from '../../src/testing/quality/measure-compaction-quality.js';
import { replayFigures } from '../../src/testing/quality/replay-figures.js';
import { observeFloors } from '../../src/testing/quality/request-floor.js';
import { windowForLine } from '../../src/testing/quality/window-for-line.js';
import type { TokenCounter } from '../../src/tokens/types.js';
import { fromChatMessages } from '../../src/transcript/from-chat-messages.js';
import type { AssistantItem, Item } from '../../src/transcript/types.js';

type LanguageModelV3Content = Awaited<
  ReturnType<MockLanguageModelV3['doGenerate']>
>['content'][number];

function userContent(item: Extract<Item, { kind: 'user' }>): string {
  return typeof item.content === 'string'
    ? item.content
    : item.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

function answerOf(item: AssistantItem): LanguageModelV3Content[] {
  return [
    ...(item.text === undefined || item.text === ''
      ? []
      : [{ type: 'text' as const, text: item.text }]),
    ...(item.toolCalls ?? []).map((call) => ({
      type: 'tool-call' as const,
      toolCallId: call.id,
      toolName: call.name,
      input: call.arguments === '' ? '{}' : call.arguments,
    })),
  ];
}

export async function measureAiSdkCompactionQuality({
  name,
  messages: recording,
  line,
  tokens,
  backend,
}: {
  readonly name: string;
  readonly messages: readonly unknown[];
  readonly line: number;
  readonly tokens: TokenCounter;
  readonly backend?: CompactionBackend;
}): Promise<CompactionQualityReport> {
  const recorded = fromChatMessages(recording as never).filter((item) => item.kind !== 'context');
  const answers = recorded.filter((item): item is AssistantItem => item.kind === 'assistant');
  const outputs = new Map(
    recorded.flatMap((item) =>
      item.kind === 'toolResult' ? [[item.callId, item.content] as const] : [],
    ),
  );
  const toolNames = [
    ...new Set(answers.flatMap((item) => (item.toolCalls ?? []).map((call) => call.name))),
  ];
  const tools: ToolSet = Object.fromEntries(
    toolNames.map((toolName) => [
      toolName,
      tool({
        description: `Replays the recorded ${toolName}`,
        inputSchema: jsonSchema({ type: 'object', additionalProperties: true }),
        execute: async (_input, { toolCallId }) => outputs.get(toolCallId) ?? '',
      }),
    ]),
  );
  let answered = 0;
  const model = new MockLanguageModelV3({
    modelId: 'recorded',
    doGenerate: async (options) => {
      const answer = answers[answered];
      answered += 1;
      const content =
        answer === undefined ? [{ type: 'text' as const, text: '' }] : answerOf(answer);
      const input = tokens.countText(JSON.stringify(options.prompt));
      return {
        content,
        finishReason: content.some((part) => part.type === 'tool-call')
          ? { unified: 'tool-calls', raw: 'tool_calls' }
          : { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: {
            total: input,
            noCache: input,
            cacheRead: undefined,
            cacheWrite: undefined,
          },
          outputTokens: { total: 50, text: 50, reasoning: undefined },
        },
        warnings: [],
      };
    },
  });
  let compactions = 0;
  let summaries = 0;
  let emergencyPrunes = 0;
  let forcedEmergencyPrunes = 0;
  const store = new MemorySessionStore();
  const floors = observeFloors(
    createCompactor({
      trigger: contextWindowTrigger({ window: windowForLine(line), outputReserve: 0 }),
      ...(backend === undefined ? {} : { backend }),
    }),
  );
  const prepareStep = compactionPrepareStep({
    compactor: floors.compactor,
    tokens,
    store,
    sessionId: name,
    onCompaction: (record) => {
      compactions += 1;
      if (record.tier === 'summary') summaries += 1;
      if (record.tier === 'emergency') {
        emergencyPrunes += 1;
        // The prune follows the compaction step the observer saw last, in the same climb.
        if (floors.latestStep()?.forced === true) forcedEmergencyPrunes += 1;
      }
    },
  });
  const requests: (readonly Item[])[] = [];
  // What the store had logged when each request was made (prepareStep logs the new messages).
  const loggedAt: (readonly Item[])[] = [];
  const loggedSoFar: Item[] = [];
  let seenSeq = 0;
  const conversation: ModelMessage[] = [];
  const failures: string[] = [];
  const userItems = recorded.filter((item) => item.kind === 'user');
  for (const user of userItems) {
    conversation.push({ role: 'user', content: userContent(user) });
    try {
      const result = await generateText({
        model,
        system: QUALITY_INSTRUCTIONS,
        messages: conversation,
        tools,
        stopWhen: stepCountIs(1_000),
        prepareStep: async (input) => {
          const prepared = await prepareStep(input);
          requests.push([...prepareStep.history()]);
          for await (const event of store.read(name, { fromSeq: seenSeq + 1 })) {
            seenSeq = event.seq;
            if (event.type === 'items-appended') loggedSoFar.push(...event.items);
          }
          loggedAt.push([...loggedSoFar]);
          return prepared;
        },
        onFinish: prepareStep.onFinish,
      });
      conversation.push(...result.response.messages);
    } catch (error) {
      failures.push(error instanceof Error ? error.message : String(error));
      break;
    }
  }

  const logged: Item[] = [];
  for await (const event of store.read(name)) {
    if (event.type === 'items-appended') logged.push(...event.items);
  }
  // What every request carries before its messages: the instructions and the tools as the
  // model is given them (name, description, parameters).
  const overheadTokens =
    tokens.countText(QUALITY_INSTRUCTIONS) +
    (toolNames.length === 0
      ? 0
      : tokens.countText(
          JSON.stringify(
            toolNames.map((toolName) => ({
              name: toolName,
              description: `Replays the recorded ${toolName}`,
              parameters: { type: 'object', additionalProperties: true },
            })),
          ),
        ));
  return {
    name,
    line,
    transcriptTokens: tokens.count(fromChatMessages(recording as never)),
    turns: userItems.length,
    turnsCompleted: userItems.length - failures.length,
    failures,
    requests: requests.length,
    compactions,
    summaries,
    emergencyPrunes,
    forcedEmergencyPrunes,
    ...replayFigures({
      requests: requests.map((items, index) => ({
        instructions: QUALITY_INSTRUCTIONS,
        items,
        logged: loggedAt[index] ?? [],
      })),
      logged,
      goal: recorded.find((item) => item.kind === 'user'),
      line,
      overheadTokens,
      tokens,
      lastStep: floors.latestStep(),
    }),
  };
}
