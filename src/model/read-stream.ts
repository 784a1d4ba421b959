import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { ModelError } from '../errors/model-error.js';
import { reasoningContentOf, responseOf, toolCallOf } from './read-completion.js';
import type { ModelDelta, ModelResponse } from './types.js';

interface PartialToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * The call a tool-call delta continues. Deltas carry an `index`; some compatible servers leave
 * it out, and then a delta with a new id starts the next call and one without continues the last.
 */
function callFor(
  calls: PartialToolCall[],
  delta: { index?: number | null; id?: string | null },
): { call: PartialToolCall; index: number } {
  let index = delta.index;
  if (typeof index !== 'number' || !Number.isInteger(index) || index < 0) {
    const last = calls.length - 1;
    const startsNew =
      last < 0 || (typeof delta.id === 'string' && delta.id !== '' && delta.id !== calls[last]?.id);
    index = startsNew ? calls.length : last;
  }
  calls[index] ??= { id: '', name: '', arguments: '' };
  return { call: calls[index] as PartialToolCall, index };
}

/**
 * Accumulates a streamed Chat Completions answer: text and reasoning deltas, tool-call deltas
 * by index, the finish reason and the final usage chunk. Text, reasoning and tool-call argument
 * deltas also go to `onDelta` as they arrive.
 */
export async function readStream({
  stream,
  model,
  signal,
  onChunk,
  onDelta,
}: {
  stream: AsyncIterable<ChatCompletionChunk>;
  model: string;
  signal: AbortSignal;
  /** Called for every chunk received, before it is read. */
  onChunk?: () => void;
  onDelta?: ((delta: ModelDelta) => void) | undefined;
}): Promise<ModelResponse> {
  let text = '';
  let reasoning = '';
  let finishReason: string | undefined;
  let usage: CompletionUsage | undefined;
  let answeredBy = model;
  const calls: PartialToolCall[] = [];

  for await (const chunk of stream) {
    onChunk?.();
    if (chunk.model) answeredBy = chunk.model;
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices ?? []) {
      if (choice.index !== 0) continue;
      const { delta } = choice;
      if (delta.content) {
        text += delta.content;
        onDelta?.({ type: 'text', delta: delta.content });
      }
      const reasoningDelta = reasoningContentOf(delta);
      if (reasoningDelta !== '') {
        reasoning += reasoningDelta;
        onDelta?.({ type: 'reasoning', delta: reasoningDelta });
      }
      for (const callDelta of delta.tool_calls ?? []) {
        const { call, index } = callFor(calls, callDelta);
        const named = call.name === '' && Boolean(callDelta.function?.name);
        if (callDelta.id) call.id = callDelta.id;
        // The name arrives whole in its first delta; later deltas only carry arguments.
        if (named) call.name = callDelta.function?.name ?? '';
        const piece = callDelta.function?.arguments ?? '';
        call.arguments += piece;
        if (piece !== '' || named) {
          onDelta?.({
            type: 'tool_call',
            index,
            ...(call.id !== '' && { callId: call.id }),
            ...(call.name !== '' && { toolName: call.name }),
            delta: piece,
          });
        }
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
  }

  // Aborting a stream ends the for-await quietly instead of throwing.
  if (signal.aborted) {
    throw new ModelError('The model request was aborted.', {
      kind: 'aborted',
      cause: signal.reason,
    });
  }
  if (finishReason === undefined) {
    throw new ModelError(
      'The model stream ended before the model finished (no finish_reason): the connection was cut.',
      { kind: 'network' },
    );
  }
  return responseOf({
    text,
    reasoning,
    toolCalls: calls.filter((call) => call !== undefined).map(toolCallOf),
    usage,
    finishReason,
    model: answeredBy,
  });
}
