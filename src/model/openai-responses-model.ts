import type OpenAI from 'openai';
import type {
  ResponseCreateParamsBase,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import type { Reasoning } from 'openai/resources/shared';
import { ConfigError } from '../errors/config-error.js';
import { ModelError } from '../errors/model-error.js';
import type { Item } from '../transcript/types.js';
import { classifyModelError } from './classify-error.js';
import { IdleTimeout } from './idle-timeout.js';
import { openAIConnection } from './openai-client.js';
import { readResponse } from './read-response.js';
import { readResponseStream } from './read-response-stream.js';
import { responsesInputOf } from './responses-input.js';
import { DEFAULT_MAX_RETRY_WAIT_MS } from './retry-requests.js';
import type { ModelAdapter, ModelRequest, ModelResponse } from './types.js';

export interface OpenAIResponsesModelOptions {
  /** An existing client; otherwise one is made from `baseURL` and `apiKey`. */
  readonly client?: OpenAI;
  readonly baseURL?: string;
  readonly apiKey?: string;
  readonly model: string;
  readonly temperature?: number;
  /** Reasoning settings passed as they are (`{effort: 'low', summary: 'auto'}`). */
  readonly reasoning?: Reasoning;
  /** Stream the answer (SSE) and report its deltas through `ModelRequest.onDelta` (default false). */
  readonly stream?: boolean;
  /**
   * `stateless` (default): every request sends the whole effective history with `store: false`,
   * so OpenAI keeps nothing and the session log stays the source of truth; reasoning travels back
   * encrypted. `previous_response_id`: responses are stored and each request sends only what was
   * added since the previous response, chained by its id; after a compaction, a reopened session
   * or anything else that breaks the chain, the whole history is sent again.
   */
  readonly conversation?: 'stateless' | 'previous_response_id';
  /**
   * Opt in to OpenAI's server-side compaction: past `compactThreshold` rendered tokens the server
   * compacts the conversation and answers with a compaction item, which the loop records as a
   * compaction marker of tier `provider`. loopkeeper's own compactor still guards the window.
   */
  readonly contextManagement?: { readonly compactThreshold: number };
  /** Retries on 408/409/429/5xx, timeouts and connection errors (default 2). */
  readonly maxRetries?: number;
  /** The longest wait before a retry (default 60 000 ms); longer `retry-after` fails at once. */
  readonly maxRetryWaitMs?: number;
  /** Milliseconds to wait for response headers, and when streaming between two events. */
  readonly timeout?: number;
}

/** Where a chained conversation stands: the response that answered the first `length` items. */
interface ChainState {
  readonly responseId: string;
  readonly length: number;
}

/**
 * A `ModelAdapter` on the official openai SDK's Responses API. Stateless by default
 * (`store: false`): reasoning items come back with `encrypted_content` and are sent back with it,
 * without server item ids, so a session can be reopened anywhere. Every failure is thrown as a
 * classified `ModelError`, with the codes `openAIChatModel` uses.
 *
 * @example
 * ```ts
 * import { createAgentLoop } from 'loopkeeper';
 * import { openAIResponsesModel } from 'loopkeeper/model';
 *
 * const model = openAIResponsesModel({
 *   apiKey: process.env['OPENAI_API_KEY'] ?? '',
 *   model: 'gpt-5-mini',
 *   reasoning: { effort: 'low', summary: 'auto' },
 * });
 * const loop = createAgentLoop({ model });
 * ```
 */
export function openAIResponsesModel({
  client,
  baseURL,
  apiKey,
  model,
  temperature,
  reasoning,
  stream = false,
  conversation = 'stateless',
  contextManagement,
  maxRetries,
  maxRetryWaitMs = DEFAULT_MAX_RETRY_WAIT_MS,
  timeout,
}: OpenAIResponsesModelOptions): ModelAdapter {
  if (conversation !== 'stateless' && conversation !== 'previous_response_id') {
    throw new ConfigError(
      `openAIResponsesModel: conversation must be 'stateless' or 'previous_response_id' (got ${String(conversation)}).`,
    );
  }
  const threshold = contextManagement?.compactThreshold;
  if (contextManagement !== undefined && !(Number.isInteger(threshold) && (threshold ?? 0) > 0)) {
    throw new ConfigError(
      `openAIResponsesModel: contextManagement.compactThreshold must be a whole number of tokens > 0 (got ${String(threshold)}).`,
    );
  }
  const { openai, withRetries } = openAIConnection('openAIResponsesModel', {
    client,
    baseURL,
    apiKey,
    model,
    maxRetries,
    maxRetryWaitMs,
    timeout,
  });
  const stored = conversation === 'previous_response_id';
  /** The chain by history array: the loop's history only grows until a compaction replaces it. */
  const chains = new WeakMap<readonly Item[], ChainState>();

  function requestBody(request: ModelRequest): ResponseCreateParamsBase {
    const { transcript } = request;
    const chain = stored ? chains.get(transcript) : undefined;
    // The chain holds while the history is the one it answered plus what came after its reply.
    const chained =
      chain !== undefined &&
      transcript.length > chain.length &&
      transcript[chain.length]?.kind === 'assistant';
    const from = chained ? chain.length + 1 : 0;
    const input: ResponseInputItem[] = [];
    for (let index = from; index < transcript.length; index += 1) {
      input.push(...responsesInputOf(transcript[index] as Item, { stored }));
    }
    return {
      model,
      input,
      ...(request.instructions !== undefined && { instructions: request.instructions }),
      store: stored,
      ...(chained && { previous_response_id: chain.responseId }),
      ...(!stored && { include: ['reasoning.encrypted_content'] }),
      ...(temperature !== undefined && { temperature }),
      ...(reasoning !== undefined && { reasoning }),
      ...(threshold !== undefined && {
        context_management: [{ type: 'compaction', compact_threshold: threshold }],
      }),
      ...(request.tools.length > 0 && {
        tools: request.tools.map((tool) => ({
          type: 'function' as const,
          name: tool.name,
          description: tool.description,
          parameters: { ...tool.parameters },
          strict: false,
        })),
        parallel_tool_calls: true,
      }),
    };
  }

  async function generate(request: ModelRequest): Promise<ModelResponse> {
    const body = requestBody(request);
    const { signal } = request;
    try {
      const { answer, responseId } = stream
        ? await generateStreaming(body, request)
        : await generateOnce(body, signal);
      if (stored && responseId !== undefined) {
        chains.set(request.transcript, { responseId, length: request.transcript.length });
      }
      return answer;
    } catch (error) {
      throw classifyModelError(error, { signal });
    }
  }

  async function generateOnce(
    body: ResponseCreateParamsBase,
    signal: AbortSignal,
  ): Promise<{ answer: ModelResponse; responseId: string | undefined }> {
    const response = await withRetries(
      async (options) => (await openai()).responses.create({ ...body, stream: false }, options),
      signal,
    );
    return { answer: readResponse({ response, model }), responseId: response.id };
  }

  async function generateStreaming(
    body: ResponseCreateParamsBase,
    request: ModelRequest,
  ): Promise<{ answer: ModelResponse; responseId: string | undefined }> {
    const idle = timeout === undefined ? undefined : new IdleTimeout({ milliseconds: timeout });
    const signal =
      idle === undefined ? request.signal : AbortSignal.any([request.signal, idle.signal]);
    let responseId: string | undefined;
    try {
      const events = await withRetries(
        async (options) => (await openai()).responses.create({ ...body, stream: true }, options),
        signal,
      );
      idle?.touch();
      const answer = await readResponseStream({
        stream: (async function* () {
          for await (const event of events) {
            if (event.type === 'response.created') responseId = event.response.id;
            yield event;
          }
        })(),
        model,
        signal,
        onEvent: () => idle?.touch(),
        onDelta: request.onDelta,
      });
      return { answer, responseId };
    } catch (error) {
      if (idle?.fired === true && !request.signal.aborted) {
        throw new ModelError(`The model stream stalled: no event for ${timeout} ms.`, {
          kind: 'timeout',
          cause: error,
        });
      }
      throw error;
    } finally {
      idle?.stop();
    }
  }

  return { name: `openai-responses:${model}`, model, generate };
}
