import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { TokenCounter } from '../../src/tokens/types.js';
import { fromChatMessages } from '../../src/transcript/from-chat-messages.js';
import type { Item } from '../../src/transcript/types.js';
import { loadTranscriptFixtures } from '../../test/support/transcripts.js';

/** One model answer and what follows it before the next request (tool results, a user turn). */
export interface SessionStep {
  /** Index of the assistant item that opens the step. */
  readonly start: number;
  /** One past the last item of the step. */
  readonly end: number;
  /** Tool calls made so far, this step's included. */
  readonly toolCallsSoFar: number;
  /** Tokens of every item up to the end of this step. */
  readonly tokensSoFar: number;
}

/**
 * A long agent session made of the shared real transcripts, replayed round after round. Every
 * copy gets fresh item ids and call ids, so the result is one protocol-valid session.
 * `messages[i]` is the OpenAI chat message `items[i]` was converted from.
 */
export interface LongSession {
  readonly items: readonly Item[];
  readonly messages: readonly ChatCompletionMessageParam[];
  /** Items before the first model answer (the opening system prompt and user request). */
  readonly prelude: number;
  readonly steps: readonly SessionStep[];
  readonly toolCalls: number;
  readonly tokens: number;
  /** How many times the five transcripts were replayed, in tool calls (a fraction for a partial last round). */
  readonly rounds: number;
  /** Exact tokens of each item. */
  readonly itemTokens: readonly number[];
}

// biome-ignore lint/suspicious/noExplicitAny: raw chat messages as stored in the fixture files
type RawMessage = any;

/** A copy of a recorded conversation whose call ids carry the copy's name (the recordings share some ids). */
function renumberCalls(messages: readonly RawMessage[], copy: string): RawMessage[] {
  const rename = (id: string) => `${id}-${copy}`;
  return messages.map((message) => {
    if (message.role === 'tool') return { ...message, tool_call_id: rename(message.tool_call_id) };
    if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
      return {
        ...message,
        tool_calls: message.tool_calls.map((call: RawMessage) => ({
          ...call,
          id: rename(call.id),
        })),
      };
    }
    return message;
  });
}

/**
 * The lean shape: the same recordings with each tool output cut to its first 100 characters,
 * each assistant text to its first 100, and the system prompts sent in the first round only.
 * It keeps the recordings' tool calls, their order and their protocol, at about 113 tokens per
 * tool call, the 200k-token / 2,000-call shape the per-step benchmark is asked for.
 */
export const LEAN_TOOL_OUTPUT_CHARACTERS = 100;
export const LEAN_ASSISTANT_TEXT_CHARACTERS = 100;

function leanMessages(messages: readonly RawMessage[], copy: number): RawMessage[] {
  const cut = (text: unknown, characters: number) =>
    typeof text === 'string' && text.length > characters ? text.slice(0, characters) : text;
  return messages
    .filter((message) => copy === 0 || message.role !== 'system')
    .map((message) => {
      if (message.role === 'tool')
        return { ...message, content: cut(message.content, LEAN_TOOL_OUTPUT_CHARACTERS) };
      if (message.role === 'assistant')
        return { ...message, content: cut(message.content, LEAN_ASSISTANT_TEXT_CHARACTERS) };
      return message;
    });
}

function callsOf(item: Item): number {
  return item.kind === 'assistant' ? (item.toolCalls?.length ?? 0) : 0;
}

/**
 * Replays the five transcripts until the session holds `toolCalls` tool calls, or `tokens`
 * tokens, whichever comes first, and cuts it at the end of that step.
 */
export function buildLongSession({
  counter,
  toolCalls = Number.POSITIVE_INFINITY,
  tokens = Number.POSITIVE_INFINITY,
  lean = false,
}: {
  readonly counter: TokenCounter;
  readonly toolCalls?: number;
  readonly tokens?: number;
  /** The lean shape (see `LEAN_TOOL_OUTPUT_CHARACTERS`) instead of the recordings as they are. */
  readonly lean?: boolean;
}): LongSession {
  const fixtures = loadTranscriptFixtures();
  const items: Item[] = [];
  const messages: ChatCompletionMessageParam[] = [];
  const itemTokens: number[] = [];
  let calls = 0;
  let total = 0;
  // Whole fixtures until both limits are passed, so the last step is complete.
  for (let copy = 0; calls < toolCalls && total < tokens; copy += 1) {
    for (const [fixtureNumber, fixture] of fixtures.entries()) {
      const recorded = lean ? leanMessages(fixture.messages, copy) : fixture.messages;
      const raw = renumberCalls(recorded, `r${copy}f${fixtureNumber}`);
      let next = 0;
      const converted = fromChatMessages(raw, {
        createId: () => {
          next += 1;
          return `r${copy}-f${fixtureNumber}-${next}`;
        },
      });
      converted.forEach((item, index) => {
        items.push(item);
        messages.push(raw[index] as ChatCompletionMessageParam);
        const count = counter.countItem(item);
        itemTokens.push(count);
        calls += callsOf(item);
        total += count;
      });
      if (calls >= toolCalls || total >= tokens) break;
    }
  }

  const answers = items.flatMap((item, index) => (item.kind === 'assistant' ? [index] : []));
  const prelude = answers[0] ?? items.length;
  let soFarTokens = itemTokens.slice(0, prelude).reduce((sum, value) => sum + value, 0);
  let soFarCalls = 0;
  const steps: SessionStep[] = [];
  for (const [position, start] of answers.entries()) {
    const end = answers[position + 1] ?? items.length;
    for (let index = start; index < end; index += 1) {
      soFarCalls += callsOf(items[index] as Item);
      soFarTokens += itemTokens[index] as number;
    }
    steps.push({ start, end, toolCallsSoFar: soFarCalls, tokensSoFar: soFarTokens });
    if (soFarCalls >= toolCalls || soFarTokens >= tokens) break;
  }
  const last = steps.at(-1) as SessionStep;
  const callsPerRound = fixtures.reduce(
    (sum, fixture) =>
      sum +
      fixture.messages.reduce(
        (calls: number, message: RawMessage) => calls + (message.tool_calls?.length ?? 0),
        0,
      ),
    0,
  );
  return {
    items: items.slice(0, last.end),
    messages: messages.slice(0, last.end),
    prelude,
    steps,
    toolCalls: last.toolCallsSoFar,
    tokens: last.tokensSoFar,
    rounds: last.toolCallsSoFar / callsPerRound,
    itemTokens: itemTokens.slice(0, last.end),
  };
}
