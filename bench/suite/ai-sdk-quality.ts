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
import { isSummaryItem } from '../../src/compaction/summary.js';
import { contextWindowTrigger } from '../../src/compaction/triggers/context-window-trigger.js';
import type { CompactionBackend } from '../../src/compaction/types.js';
import type { SessionEvent } from '../../src/log/events.js';
import { MemorySessionStore } from '../../src/log/memory-store.js';
import {
  type CompactionQualityReport,
  type FactRecall,
  lowestRequestRecall,
  QUALITY_INSTRUCTIONS,
} from '../../src/testing/quality/measure-compaction-quality.js';
import { observeFloors, roomAfterFloor } from '../../src/testing/quality/request-floor.js';
import { windowForLine } from '../../src/testing/quality/window-for-line.js';
import {
  isVisible,
  visibleText,
  type WorkFacts,
  workFactsOf,
} from '../../src/testing/quality/work-facts.js';
import type { TokenCounter } from '../../src/tokens/types.js';
import { fromChatMessages } from '../../src/transcript/from-chat-messages.js';
import type { AssistantItem, Item } from '../../src/transcript/types.js';
import { validateTranscript } from '../../src/transcript/validate-transcript.js';

// recall and factsOnlyIn are re-stated from measure-compaction-quality.ts (not exported there).
function recall(dropped: readonly string[], visible: string): FactRecall {
  const lost = dropped.filter((fact) => !isVisible(fact, visible));
  return {
    dropped: dropped.length,
    visible: dropped.length - lost.length,
    lost: lost.slice(0, 20),
  };
}

function factsOnlyIn(dropped: WorkFacts, kept: WorkFacts): WorkFacts {
  const without = (facts: readonly string[], known: readonly string[]) => {
    const set = new Set(known);
    return facts.filter((fact) => !set.has(fact));
  };
  return {
    paths: without(dropped.paths, kept.paths),
    errorLines: without(dropped.errorLines, kept.errorLines),
    identifiers: without(dropped.identifiers, kept.identifiers),
  };
}

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

  const goal = recorded.find((item) => item.kind === 'user');
  const goalText = goal === undefined ? '' : visibleText(undefined, [goal]);
  let goalKept = true;
  let compactedYet = false;
  let invalidRequests = 0;
  let maxRequestTokens = 0;
  let previous: readonly Item[] = [];
  for (const items of requests) {
    if (validateTranscript(items).length > 0) invalidRequests += 1;
    maxRequestTokens = Math.max(maxRequestTokens, tokens.count(items));
    if (!previous.every((item, index) => items[index] === item)) compactedYet = true;
    if (compactedYet && !isVisible(goalText, visibleText(QUALITY_INSTRUCTIONS, items))) {
      goalKept = false;
    }
    previous = items;
  }
  const finalItems = requests.at(-1) ?? [];
  const visible = visibleText(QUALITY_INSTRUCTIONS, finalItems);
  const finalIds = new Set(finalItems.map((item) => item.id));
  const logged: Item[] = [];
  const events: SessionEvent[] = [];
  for await (const event of store.read(name)) events.push(event);
  for (const event of events) if (event.type === 'items-appended') logged.push(...event.items);
  const dropped = logged.filter((item) => !finalIds.has(item.id));
  const facts = factsOnlyIn(workFactsOf(dropped), workFactsOf(finalItems));
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
    maxRequestTokens,
    reduction: logged.length === 0 ? 0 : 1 - tokens.count(finalItems) / tokens.count(logged),
    goalKept,
    paths: recall(facts.paths, visible),
    errorLines: recall(facts.errorLines, visible),
    identifiers: recall(facts.identifiers, visible),
    lowestAtRequest: lowestRequestRecall(
      requests.map((items, index) => ({
        instructions: QUALITY_INSTRUCTIONS,
        items,
        logged: loggedAt[index] ?? [],
      })),
    ),
    invalidRequests,
    overheadTokens,
    ...roomAfterFloor({
      finalItems,
      dropped,
      facts,
      goalText,
      line,
      overheadTokens,
      tokens,
      lastStep: floors.latestStep(),
    }),
    finalSummary: finalItems.find(isSummaryItem)?.text,
  };
}
