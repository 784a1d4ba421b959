import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  SharedV3ProviderOptions,
} from '@ai-sdk/provider';
import { ConfigError } from '../errors/config-error.js';
import { ModelError } from '../errors/model-error.js';
import { IdleTimeout } from '../model/idle-timeout.js';
import { retryLoop } from '../model/retry-loop.js';
import type { ModelAdapter, ModelRequest, ModelResponse } from '../model/types.js';
import { classifyAiSdkError } from './classify-ai-sdk-error.js';
import { readGenerateResult } from './read-generate-result.js';
import { readStreamParts } from './read-stream-parts.js';
import { aiSdkRetryPolicy } from './retry-policy.js';
import { toFunctionTools, toPrompt } from './to-prompt.js';

const DEFAULT_MAX_RETRY_WAIT_MS = 60_000;

export interface AiSdkModelOptions {
  /**
   * Call `doStream` and report text, reasoning and tool-call argument deltas through `onDelta`
   * (default false: `doGenerate`).
   */
  readonly stream?: boolean;
  /**
   * Retries on what the provider marks retryable (connection errors, 408, 409, 429, 5xx, 529),
   * honouring `retry-after-ms` / `retry-after` (default 2). The adapter calls the model directly,
   * so the SDK's own retries of `generateText` do not apply; these do.
   */
  readonly maxRetries?: number;
  /**
   * The longest wait before a retry (default 60 000 ms). A server asking for longer fails the
   * request at once with `rate_limited` and `retryAfterMs`.
   */
  readonly maxRetryWaitMs?: number;
  /**
   * Milliseconds to wait for the answer (or, when streaming, for the stream to start), per
   * attempt; when streaming, also the longest pause allowed between two parts. None by default.
   */
  readonly timeout?: number;
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  /**
   * Provider options for every call, as `generateText` takes them: for example
   * `{anthropic: {thinking: {type: 'enabled', budgetTokens: 4000}}}`.
   */
  readonly providerOptions?: SharedV3ProviderOptions;
  /** Extra HTTP headers for every call. */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * A `ModelAdapter` on any AI SDK language model (the `LanguageModelV3` that `@ai-sdk/anthropic`,
 * `@ai-sdk/google`, `@ai-sdk/openai`, `@ai-sdk/amazon-bedrock`, `ollama-ai-provider` and others
 * return). Reasoning comes back with the provider's data (a signature, redacted or encrypted
 * content) as `providerData`, is kept in the log, and is sent back unchanged. Every failure is
 * thrown as a classified `ModelError`, so overflows compact, 413s prune and outages retry.
 *
 * @example
 * ```ts
 * import { createAnthropic } from '@ai-sdk/anthropic';
 * import { createAgentLoop } from 'loopkeeper';
 * import { aiSdkModel } from 'loopkeeper/ai-sdk';
 *
 * const anthropic = createAnthropic({ apiKey: process.env['ANTHROPIC_API_KEY'] ?? '' });
 * const model = aiSdkModel(anthropic('claude-sonnet-4-5'), {
 *   stream: true,
 *   providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 4000 } } },
 * });
 * const loop = createAgentLoop({ model });
 * ```
 */
export function aiSdkModel(
  languageModel: LanguageModelV3,
  {
    stream = false,
    maxRetries = 2,
    maxRetryWaitMs = DEFAULT_MAX_RETRY_WAIT_MS,
    timeout,
    maxOutputTokens,
    temperature,
    providerOptions,
    headers,
  }: AiSdkModelOptions = {},
): ModelAdapter {
  assertLanguageModel(languageModel);
  if (!(Number.isInteger(maxRetries) && maxRetries >= 0)) {
    throw new ConfigError(
      `aiSdkModel: maxRetries must be a whole number >= 0 (got ${maxRetries}).`,
    );
  }
  if (!(Number.isInteger(maxRetryWaitMs) && maxRetryWaitMs >= 0)) {
    throw new ConfigError(
      `aiSdkModel: maxRetryWaitMs must be a whole number of milliseconds >= 0 (got ${maxRetryWaitMs}).`,
    );
  }
  if (timeout !== undefined && !(Number.isInteger(timeout) && timeout > 0)) {
    throw new ConfigError(
      `aiSdkModel: timeout must be a whole number of milliseconds > 0 (got ${timeout}).`,
    );
  }
  const modelId = languageModel.modelId;

  function callOptions(request: ModelRequest, signal: AbortSignal): LanguageModelV3CallOptions {
    const tools = toFunctionTools(request.tools);
    return {
      prompt: toPrompt({ instructions: request.instructions, transcript: request.transcript }),
      ...(tools.length > 0 && { tools, toolChoice: { type: 'auto' } }),
      ...(maxOutputTokens !== undefined && { maxOutputTokens }),
      ...(temperature !== undefined && { temperature }),
      ...(providerOptions !== undefined && { providerOptions }),
      ...(headers !== undefined && { headers: { ...headers } }),
      abortSignal: signal,
    };
  }

  /** One attempt's signal: the request's, and the idle timeout's when one is set. */
  function attemptSignal(request: ModelRequest, idle: IdleTimeout | undefined): AbortSignal {
    return idle === undefined ? request.signal : AbortSignal.any([request.signal, idle.signal]);
  }

  async function attempt(request: ModelRequest): Promise<ModelResponse> {
    const idle = timeout === undefined ? undefined : new IdleTimeout({ milliseconds: timeout });
    const signal = attemptSignal(request, idle);
    let delivered = false;
    idle?.touch();
    try {
      if (!stream) {
        const result = await untilAborted(
          languageModel.doGenerate(callOptions(request, signal)),
          signal,
        );
        return readGenerateResult({ result, model: modelId });
      }
      const { stream: parts } = await untilAborted(
        languageModel.doStream(callOptions(request, signal)),
        signal,
      );
      idle?.touch();
      return await readStreamParts({
        stream: parts,
        model: modelId,
        signal,
        onPart: () => idle?.touch(),
        onDelta:
          request.onDelta === undefined
            ? undefined
            : (delta) => {
                delivered = true;
                request.onDelta?.(delta);
              },
      });
    } catch (error) {
      const failure =
        idle?.fired === true && !request.signal.aborted
          ? new ModelError(`The model did not answer for ${timeout} ms.`, {
              kind: 'timeout',
              cause: error,
            })
          : classifyAiSdkError(error, { signal });
      // Deltas already shown to the host would be shown twice by a retry: fail instead.
      if (!delivered || !failure.retryable) throw failure;
      throw new ModelError(`${failure.message} (after part of the answer was streamed)`, {
        kind: failure.kind,
        cause: error,
        retryable: false,
        ...(failure.status === undefined ? {} : { status: failure.status }),
      });
    } finally {
      idle?.stop();
    }
  }

  async function generate(request: ModelRequest): Promise<ModelResponse> {
    const { signal } = request;
    try {
      return await retryLoop(() => attempt(request), aiSdkRetryPolicy, {
        maxRetries,
        maxRetryWaitMs,
        signal,
      });
    } catch (error) {
      throw classifyAiSdkError(error, { signal });
    }
  }

  return { name: `ai-sdk:${languageModel.provider}:${modelId}`, model: modelId, generate };
}

/** Settles with `promise`, or rejects as aborted as soon as `signal` aborts (whether or not the provider watches it). */
function untilAborted<T>(promise: PromiseLike<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortedError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortedError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(promise).then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function abortedError(signal: AbortSignal): ModelError {
  return new ModelError('The model request was aborted.', {
    kind: 'aborted',
    cause: signal.reason,
  });
}

function assertLanguageModel(value: unknown): asserts value is LanguageModelV3 {
  const model = value as Partial<LanguageModelV3> | null | undefined;
  if (
    typeof model !== 'object' ||
    model === null ||
    typeof model.doGenerate !== 'function' ||
    typeof model.doStream !== 'function'
  ) {
    throw new ConfigError(
      'aiSdkModel needs an AI SDK language model (such as anthropic("claude-sonnet-4-5") from @ai-sdk/anthropic), with doGenerate and doStream.',
    );
  }
  if (model.specificationVersion !== 'v3') {
    throw new ConfigError(
      `aiSdkModel supports language models of specification v3 (AI SDK 6 providers); this one is ${String(model.specificationVersion)}.`,
    );
  }
}
