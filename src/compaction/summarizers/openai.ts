import type OpenAI from 'openai';
import { CompactionError } from '../../errors/compaction-error.js';
import { ConfigError } from '../../errors/config-error.js';
import { lazyClient } from '../../model/openai-client.js';
import { DEFAULT_MAX_RETRY_WAIT_MS, retryRequests } from '../../model/retry-requests.js';
import { validateSummaryText } from '../summary.js';
import type { CompactionBackend, SummaryRequest, SummaryResult } from '../types.js';
import { DEFAULT_SUMMARY_INPUT_TOKENS } from './chunk-input.js';
import { renderSummaryInput } from './render.js';
import { DEFAULT_SUMMARY_PROMPT, summaryUserMessage } from './summary-prompt.js';

export interface OpenAISummarizerOptions {
  /** A configured SDK client; otherwise one is built from `baseURL` and `apiKey`. */
  readonly client?: OpenAI;
  readonly baseURL?: string;
  readonly apiKey?: string;
  /** The summarizing model; it can be smaller and cheaper than the agent's model. */
  readonly model: string;
  /**
   * The most tokens of record (rendered previous summary + conversation) one call is given.
   * Keep it below the summarizing model's window minus the prompt (a few hundred tokens) and
   * the summary it writes; larger input is chunked by `summarizeOlder`.
   */
  readonly maxInputTokens?: number;
  /** Replaces the system prompt; it must still ask for the fixed sections. */
  readonly prompt?: string;
  /** Per-request timeout handed to the SDK. */
  readonly timeoutMs?: number;
  /**
   * Retries of failed requests; default 0, since a failed summary has a fallback. Retries are
   * loopkeeper's own, as in `openAIChatModel`: waits capped by `maxRetryWaitMs`, ended by abort.
   */
  readonly maxRetries?: number;
  /** The longest wait before a retry (a longer `retry-after` fails at once). Default 60,000 ms. */
  readonly maxRetryWaitMs?: number;
  readonly temperature?: number;
  readonly maxOutputTokens?: number;
}

/**
 * A summarizer backend that asks a Chat Completions model for the sectioned summary.
 *
 * @example
 * ```ts
 * import { createCompactor, openAISummarizer, tokenBudgetTrigger } from 'loopkeeper';
 *
 * const compactor = createCompactor({
 *   trigger: tokenBudgetTrigger({ maxTokens: 100_000 }),
 *   backend: openAISummarizer({
 *     apiKey: process.env['OPENAI_API_KEY'] ?? '',
 *     model: 'gpt-4o-mini',
 *   }),
 * });
 * ```
 */
export function openAISummarizer(options: OpenAISummarizerOptions): CompactionBackend {
  const {
    model,
    maxInputTokens = DEFAULT_SUMMARY_INPUT_TOKENS,
    prompt = DEFAULT_SUMMARY_PROMPT,
    timeoutMs,
    maxRetries = 0,
    maxRetryWaitMs = DEFAULT_MAX_RETRY_WAIT_MS,
    temperature,
    maxOutputTokens,
  } = options;
  if (typeof model !== 'string' || model === '') {
    throw new ConfigError('openAISummarizer: model must be a non-empty string');
  }
  if (!(maxInputTokens > 0)) {
    throw new ConfigError(
      `openAISummarizer: maxInputTokens must be positive, got ${maxInputTokens}`,
    );
  }
  // The host's client, or one built (and the SDK imported) at the first summary.
  const given = options.client;
  const client =
    given === undefined
      ? lazyClient({
          adapter: 'openAISummarizer',
          baseURL: options.baseURL,
          apiKey: options.apiKey,
        })
      : () => Promise.resolve(given);

  async function summarize({
    transcript,
    previousSummary,
    instructions,
    signal,
  }: SummaryRequest): Promise<SummaryResult> {
    const rendered = renderSummaryInput(
      previousSummary === undefined ? { transcript } : { transcript, previousSummary },
    );
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      // The SDK's own retries sleep through an abort and honour any retry-after: off.
      completion = await retryRequests(
        async () =>
          (await client()).chat.completions.create(
            {
              model,
              messages: [
                { role: 'system', content: prompt },
                { role: 'user', content: summaryUserMessage(rendered, instructions) },
              ],
              ...(temperature === undefined ? {} : { temperature }),
              ...(maxOutputTokens === undefined ? {} : { max_completion_tokens: maxOutputTokens }),
            },
            { signal, maxRetries: 0, ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }) },
          ),
        { maxRetries, maxRetryWaitMs, signal },
      );
    } catch (error) {
      throw new CompactionError(
        `openAISummarizer: the summary request to ${model} failed: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error, code: signal.aborted ? 'summary_aborted' : 'summary_failed' },
      );
    }
    // Compatible servers sometimes omit fields the SDK types promise; treat that as no text.
    const content: unknown = completion.choices?.[0]?.message?.content;
    const text = validateSummaryText(typeof content === 'string' ? content : '');
    return !completion.usage
      ? { text }
      : {
          text,
          usage: {
            promptTokens: completion.usage.prompt_tokens,
            completionTokens: completion.usage.completion_tokens,
          },
        };
  }

  return { name: `openai:${model}`, maxInputTokens, summarize };
}
