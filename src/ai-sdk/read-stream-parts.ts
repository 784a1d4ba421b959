import type { LanguageModelV3StreamPart, SharedV3ProviderMetadata } from '@ai-sdk/provider';
import { ModelError } from '../errors/model-error.js';
import type { ModelDelta, ModelResponse } from '../model/types.js';
import { classifyAiSdkError } from './classify-ai-sdk-error.js';
import { emptyAnswer, finishReasonOf, reasoningOf, responseOf, usageOf } from './response-parts.js';

interface OpenReasoning {
  text: string;
  providerMetadata: SharedV3ProviderMetadata | undefined;
}

/**
 * Reads a `doStream` stream into a response. Text, reasoning and tool-call argument deltas go to
 * `onDelta` as they arrive; a tool call's `index` is its position among the calls the stream
 * started (`tool-input-start`).
 * Reasoning is assembled per block id; provider metadata arriving on a later delta or on the
 * end part (Anthropic sends the signature as the block's last delta) replaces the earlier one,
 * as the SDK's own `streamText` does. An `error` part ends the read with its classified error;
 * a stream that ends without a `finish` part was cut and fails as `network`.
 */
export async function readStreamParts({
  stream,
  model,
  signal,
  onPart,
  onDelta,
}: {
  stream: ReadableStream<LanguageModelV3StreamPart>;
  model: string;
  signal: AbortSignal;
  /** Called for every part received, before it is read. */
  onPart?: () => void;
  onDelta?: ((delta: ModelDelta) => void) | undefined;
}): Promise<ModelResponse> {
  const parts = emptyAnswer(model);
  const reasoning = new Map<string, OpenReasoning>();
  /** Tool calls by the id the stream gave them, numbered in the order they started. */
  const callIndexes = new Map<string, number>();
  let finished = false;
  for await (const part of abortable(stream, signal)) {
    onPart?.();
    switch (part.type) {
      case 'text-delta':
        parts.text += part.delta;
        if (part.delta !== '') onDelta?.({ type: 'text', delta: part.delta });
        break;
      case 'tool-input-start':
        if (part.providerExecuted !== true && !callIndexes.has(part.id)) {
          callIndexes.set(part.id, callIndexes.size);
          onDelta?.({
            type: 'tool_call',
            index: callIndexes.size - 1,
            callId: part.id,
            toolName: part.toolName,
            delta: '',
          });
        }
        break;
      case 'tool-input-delta': {
        const index = callIndexes.get(part.id);
        if (index !== undefined && part.delta !== '') {
          onDelta?.({ type: 'tool_call', index, callId: part.id, delta: part.delta });
        }
        break;
      }
      case 'reasoning-start':
        reasoning.set(part.id, { text: '', providerMetadata: part.providerMetadata });
        break;
      case 'reasoning-delta':
      case 'reasoning-end': {
        const open = reasoning.get(part.id) ?? { text: '', providerMetadata: undefined };
        if (part.type === 'reasoning-delta' && part.delta !== '') {
          open.text += part.delta;
          onDelta?.({ type: 'reasoning', delta: part.delta });
        }
        open.providerMetadata = part.providerMetadata ?? open.providerMetadata;
        reasoning.set(part.id, open);
        break;
      }
      case 'tool-call':
        if (part.providerExecuted !== true) {
          parts.toolCalls.push({ id: part.toolCallId, name: part.toolName, arguments: part.input });
        }
        break;
      case 'response-metadata':
        if (part.modelId !== undefined) parts.model = part.modelId;
        break;
      case 'finish':
        finished = true;
        parts.usage = usageOf(part.usage);
        parts.finishReason = finishReasonOf(part.finishReason);
        break;
      case 'error':
        throw classifyAiSdkError(part.error, { signal });
    }
  }
  if (!finished) {
    throw new ModelError(
      'The model stream ended before the model finished (no finish part): the connection was cut.',
      { kind: 'network' },
    );
  }
  for (const open of reasoning.values()) {
    parts.reasoning.push(reasoningOf(open.text, open.providerMetadata));
  }
  return responseOf(parts);
}

/**
 * The stream's parts, ending with an `aborted` error as soon as `signal` aborts, even when the
 * provider does not watch the signal itself; the stream is cancelled either way.
 */
async function* abortable<T>(stream: ReadableStream<T>, signal: AbortSignal): AsyncGenerator<T> {
  const reader = stream.getReader();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () =>
      reject(
        new ModelError('The model request was aborted.', { kind: 'aborted', cause: signal.reason }),
      );
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => {});
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), aborted]);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
    reader.cancel().catch(() => {});
  }
}
