import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { ModelError } from '../errors/model-error.js';
import { chatRequestBody } from './chat-request.js';
import { classifyModelError } from './classify-error.js';
import { IdleTimeout } from './idle-timeout.js';
import { openAIConnection } from './openai-client.js';
import { readCompletion } from './read-completion.js';
import { readStream } from './read-stream.js';
import { DEFAULT_MAX_RETRY_WAIT_MS } from './retry-requests.js';
import type { ModelAdapter, ModelRequest, ModelResponse } from './types.js';

export interface OpenAIChatModelOptions {
  /** An existing client; otherwise one is made from `baseURL` and `apiKey`. */
  readonly client?: OpenAI;
  readonly baseURL?: string;
  readonly apiKey?: string;
  readonly model: string;
  readonly temperature?: number;
  /** Stream the answer and report its deltas through `ModelRequest.onDelta` (default false). */
  readonly stream?: boolean;
  /**
   * Retries on 408/409/429/5xx, timeouts and connection errors, honouring `retry-after` (default
   * 2; with a given `client`, that client's own setting). The adapter retries itself, not the SDK,
   * so that waits are capped and end when the request is aborted.
   */
  readonly maxRetries?: number;
  /**
   * The longest wait before a retry (default 60 000 ms). A server asking for longer
   * (`retry-after: 3600`) fails the request at once with `rate_limited` and `retryAfterMs`.
   */
  readonly maxRetryWaitMs?: number;
  /**
   * Milliseconds the SDK waits for response headers, per attempt (default: the client's, 10
   * minutes); when streaming, also the longest pause allowed between two chunks.
   */
  readonly timeout?: number;
}

/**
 * A `ModelAdapter` on the official openai SDK's Chat Completions API, for OpenAI and
 * compatible servers. Every failure is thrown as a classified `ModelError`.
 *
 * @example
 * ```ts
 * import { createAgentLoop, openAIChatModel } from 'loopkeeper';
 *
 * // Any Chat Completions compatible server works through baseURL.
 * const model = openAIChatModel({
 *   baseURL: 'http://localhost:11434/v1',
 *   apiKey: 'ollama',
 *   model: 'qwen3',
 * });
 * const loop = createAgentLoop({ model });
 * ```
 */
export function openAIChatModel({
  client,
  baseURL,
  apiKey,
  model,
  temperature,
  stream = false,
  maxRetries,
  maxRetryWaitMs = DEFAULT_MAX_RETRY_WAIT_MS,
  timeout,
}: OpenAIChatModelOptions): ModelAdapter {
  const { openai, withRetries: createWithRetries } = openAIConnection('openAIChatModel', {
    client,
    baseURL,
    apiKey,
    model,
    maxRetries,
    maxRetryWaitMs,
    timeout,
  });

  async function generate(request: ModelRequest): Promise<ModelResponse> {
    const body = chatRequestBody({ request, model, temperature });
    const { signal } = request;
    try {
      if (!stream) {
        const completion = await createWithRetries(
          async (options) =>
            (await openai()).chat.completions.create({ ...body, stream: false }, options),
          signal,
        );
        return readCompletion({ completion, model });
      }
      return await generateStreaming({ body, request });
    } catch (error) {
      throw classifyModelError(error, { signal });
    }
  }

  async function generateStreaming({
    body,
    request,
  }: {
    body: ChatCompletionCreateParamsBase;
    request: ModelRequest;
  }): Promise<ModelResponse> {
    const idle = timeout === undefined ? undefined : new IdleTimeout({ milliseconds: timeout });
    const signal =
      idle === undefined ? request.signal : AbortSignal.any([request.signal, idle.signal]);
    try {
      const chunks = await createWithRetries(
        async (options) =>
          (await openai()).chat.completions.create(
            { ...body, stream: true, stream_options: { include_usage: true } },
            options,
          ),
        signal,
      );
      // From here on the SDK's timeout no longer applies: guard the gaps between chunks.
      idle?.touch();
      return await readStream({
        stream: chunks,
        model,
        signal,
        onChunk: () => idle?.touch(),
        onDelta: request.onDelta,
      });
    } catch (error) {
      if (idle?.fired === true && !request.signal.aborted) {
        throw new ModelError(`The model stream stalled: no chunk for ${timeout} ms.`, {
          kind: 'timeout',
          cause: error,
        });
      }
      throw error;
    } finally {
      idle?.stop();
    }
  }

  return { name: `openai:${model}`, model, generate };
}
