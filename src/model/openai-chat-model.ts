import OpenAI from 'openai';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { ConfigError } from '../errors/config-error.js';
import { toChatMessages } from '../transcript/to-chat-messages.js';
import { classifyModelError } from './classify-error.js';
import { readCompletion } from './read-completion.js';
import { readStream } from './read-stream.js';
import type { ModelAdapter, ModelRequest, ModelResponse } from './types.js';

export interface OpenAIChatModelOptions {
  /** An existing client; otherwise one is made from `baseURL` and `apiKey`. */
  readonly client?: OpenAI;
  readonly baseURL?: string;
  readonly apiKey?: string;
  readonly model: string;
  readonly temperature?: number;
  /** Stream the answer and report text deltas through `onTextDelta` (default false). */
  readonly stream?: boolean;
  /**
   * Retries the SDK makes on 408/409/429/5xx, timeouts and connection errors, honouring
   * `retry-after` (default 2; with a given `client`, that client's own setting).
   */
  readonly maxRetries?: number;
  /** Milliseconds the SDK waits for response headers, per attempt (default: the client's, 10 minutes). */
  readonly timeout?: number;
}

/**
 * A `ModelAdapter` on the official openai SDK's Chat Completions API, for OpenAI and
 * compatible servers. Every failure is thrown as a classified `ModelError`.
 */
export function openAIChatModel({
  client,
  baseURL,
  apiKey,
  model,
  temperature,
  stream = false,
  maxRetries,
  timeout,
}: OpenAIChatModelOptions): ModelAdapter {
  if (typeof model !== 'string' || model === '') {
    throw new ConfigError('openAIChatModel needs a non-empty `model` name.');
  }
  if (maxRetries !== undefined && !(Number.isInteger(maxRetries) && maxRetries >= 0)) {
    throw new ConfigError(
      `openAIChatModel: maxRetries must be a whole number >= 0 (got ${maxRetries}).`,
    );
  }
  if (timeout !== undefined && !(Number.isInteger(timeout) && timeout > 0)) {
    throw new ConfigError(
      `openAIChatModel: timeout must be a whole number of milliseconds > 0 (got ${timeout}).`,
    );
  }
  const openai = client ?? createClient({ baseURL, apiKey, maxRetries: maxRetries ?? 2 });
  // Per-request options override the client's only where the host asked for something.
  const requestOptions = {
    ...(maxRetries !== undefined && { maxRetries }),
    ...(timeout !== undefined && { timeout }),
  };

  async function generate(request: ModelRequest): Promise<ModelResponse> {
    const body: ChatCompletionCreateParamsBase = {
      model,
      // The loop validates every transcript before a request, so it is not checked twice here.
      messages: toChatMessages(request.transcript, {
        ...(request.instructions !== undefined && { instructions: request.instructions }),
        validate: false,
      }),
      ...(temperature !== undefined && { temperature }),
      ...(request.tools.length > 0 && {
        tools: request.tools.map((tool) => ({
          type: 'function' as const,
          function: {
            name: tool.name,
            description: tool.description,
            parameters: { ...tool.parameters },
          },
        })),
        parallel_tool_calls: true,
      }),
    };
    const { signal } = request;
    try {
      if (!stream) {
        const completion = await openai.chat.completions.create(
          { ...body, stream: false },
          { ...requestOptions, signal },
        );
        return readCompletion({ completion, model });
      }
      const chunks = await openai.chat.completions.create(
        { ...body, stream: true, stream_options: { include_usage: true } },
        { ...requestOptions, signal },
      );
      return await readStream({ stream: chunks, model, signal, onTextDelta: request.onTextDelta });
    } catch (error) {
      throw classifyModelError(error, { signal });
    }
  }

  return { name: `openai:${model}`, generate };
}

function createClient({
  baseURL,
  apiKey,
  maxRetries,
}: {
  baseURL: string | undefined;
  apiKey: string | undefined;
  maxRetries: number;
}): OpenAI {
  try {
    return new OpenAI({
      maxRetries,
      ...(baseURL !== undefined && { baseURL }),
      ...(apiKey !== undefined && { apiKey }),
    });
  } catch (error) {
    throw new ConfigError(
      `openAIChatModel needs a \`client\`, or an \`apiKey\` (and usually a \`baseURL\`): ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
