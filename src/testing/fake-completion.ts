import type { FakeAnswer, FakeToolCall } from './fake-replies.js';
import type { FakeChatRequestBody } from './fake-request.js';

/** The wire shape of one resolved tool call. */
interface WireToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/** One `chat.completion.chunk`; `choices` is empty on the final usage chunk. */
export interface WireChunk {
  readonly id: string;
  readonly object: 'chat.completion.chunk';
  readonly created: number;
  readonly model: string;
  readonly choices: readonly {
    readonly index: number;
    readonly delta: Readonly<Record<string, unknown>>;
    readonly logprobs: null;
    readonly finish_reason: string | null;
  }[];
  readonly usage?: WireUsage;
}

interface WireUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
  readonly prompt_tokens_details: { readonly cached_tokens: number };
}

export interface CompletionContext {
  readonly answer: FakeAnswer;
  readonly body: FakeChatRequestBody;
  readonly completionId: string;
  readonly created: number;
  readonly nextCallId: () => string;
}

/** A non-streaming `chat.completion` object for the answer. */
export function buildCompletion(context: CompletionContext): Record<string, unknown> {
  const { answer } = context;
  const toolCalls = resolveToolCalls({ calls: answer.toolCalls, nextCallId: context.nextCallId });
  const message = {
    role: 'assistant',
    content: answer.text ?? null,
    refusal: null,
    ...(answer.reasoning !== undefined && { reasoning_content: answer.reasoning }),
    ...(toolCalls.length > 0 && {
      tool_calls: toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      })),
    }),
  };
  return {
    id: context.completionId,
    object: 'chat.completion',
    created: context.created,
    model: answer.model ?? context.body.model ?? 'fake-model',
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: finishReasonOf({ answer, toolCalls }),
      },
    ],
    usage: usageOf({ answer, body: context.body, toolCalls }),
  };
}

/**
 * The `chat.completion.chunk` objects of a streamed answer, in order: role, reasoning deltas,
 * text deltas, tool-call deltas (id and name first, then argument pieces; one call after the
 * other, or in turns with `interleaveToolCalls`), the finish chunk,
 * and a usage chunk with empty choices when the request asked for `include_usage`.
 */
export function buildChunks(context: CompletionContext): WireChunk[] {
  const { answer, body } = context;
  const chunkSize = Math.max(1, answer.chunkSize ?? 8);
  const toolCalls = resolveToolCalls({ calls: answer.toolCalls, nextCallId: context.nextCallId });
  const model = answer.model ?? body.model ?? 'fake-model';
  const chunk = (choices: WireChunk['choices'], extra: { usage?: WireUsage } = {}): WireChunk => ({
    id: context.completionId,
    object: 'chat.completion.chunk',
    created: context.created,
    model,
    choices,
    ...extra,
  });
  const delta = (value: Record<string, unknown>, finishReason: string | null = null) =>
    chunk([{ index: 0, delta: value, logprobs: null, finish_reason: finishReason }]);

  const chunks = [delta({ role: 'assistant', content: '' })];
  for (const piece of splitText({ text: answer.reasoning ?? '', size: chunkSize })) {
    chunks.push(delta({ reasoning_content: piece }));
  }
  for (const piece of splitText({ text: answer.text ?? '', size: chunkSize })) {
    chunks.push(delta({ content: piece }));
  }
  const callChunks = toolCalls.map((call, index) => [
    delta({
      tool_calls: [
        { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
      ],
    }),
    ...splitText({ text: call.arguments, size: chunkSize }).map((piece) =>
      delta({ tool_calls: [{ index, function: { arguments: piece } }] }),
    ),
  ]);
  if (answer.interleaveToolCalls === true) chunks.push(...takeInTurns(callChunks));
  else chunks.push(...callChunks.flat());
  chunks.push(delta({}, finishReasonOf({ answer, toolCalls })));
  if (body.stream_options?.include_usage === true) {
    chunks.push(chunk([], { usage: usageOf({ answer, body, toolCalls }) }));
  }
  return chunks;
}

function resolveToolCalls({
  calls = [],
  nextCallId,
}: {
  calls?: readonly FakeToolCall[] | undefined;
  nextCallId: () => string;
}): WireToolCall[] {
  return calls.map((call) => ({
    id: call.id ?? nextCallId(),
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
}

function finishReasonOf({
  answer,
  toolCalls,
}: {
  answer: FakeAnswer;
  toolCalls: readonly WireToolCall[];
}): string {
  return answer.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop');
}

/** Explicit numbers win; the rest is a rough estimate (about four characters a token). */
function usageOf({
  answer,
  body,
  toolCalls,
}: {
  answer: FakeAnswer;
  body: FakeChatRequestBody;
  toolCalls: readonly WireToolCall[];
}): WireUsage {
  const promptTokens =
    answer.usage?.promptTokens ??
    roughTokens(JSON.stringify(body.messages ?? []) + JSON.stringify(body.tools ?? []));
  const completionTokens =
    answer.usage?.completionTokens ??
    Math.max(
      1,
      roughTokens(
        (answer.text ?? '') +
          (answer.reasoning ?? '') +
          toolCalls.map((call) => call.name + call.arguments).join(''),
      ),
    );
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: answer.usage?.cachedTokens ?? 0 },
  };
}

function roughTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The first of each list, then the second of each, and so on. */
function takeInTurns<T>(lists: readonly (readonly T[])[]): T[] {
  const taken: T[] = [];
  const longest = Math.max(0, ...lists.map((list) => list.length));
  for (let position = 0; position < longest; position += 1) {
    for (const list of lists) {
      if (position < list.length) taken.push(list[position] as T);
    }
  }
  return taken;
}

function splitText({ text, size }: { text: string; size: number }): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) {
    pieces.push(text.slice(start, start + size));
  }
  return pieces;
}
