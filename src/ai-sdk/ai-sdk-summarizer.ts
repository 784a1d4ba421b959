import { generateText, type LanguageModel } from 'ai';
import { DEFAULT_SUMMARY_INPUT_TOKENS } from '../compaction/summarizers/chunk-input.js';
import { renderSummaryInput } from '../compaction/summarizers/render.js';
import {
  DEFAULT_SUMMARY_PROMPT,
  summaryUserMessage,
} from '../compaction/summarizers/summary-prompt.js';
import { validateSummaryText } from '../compaction/summary.js';
import type { CompactionBackend, SummaryRequest, SummaryResult } from '../compaction/types.js';
import { CompactionError } from '../errors/compaction-error.js';
import { ConfigError } from '../errors/config-error.js';

export interface AiSdkSummarizerOptions {
  /** Any AI SDK language model (or gateway model id); it can be smaller than the agent's. */
  readonly model: LanguageModel;
  /** The most tokens of record one call is given; larger input is chunked. Default 100,000. */
  readonly maxInputTokens?: number;
  /** Replaces the system prompt; it must still ask for the fixed sections. */
  readonly prompt?: string;
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  /** Retries by the AI SDK; default 0, since a failed summary falls back to the emergency prune. */
  readonly maxRetries?: number;
}

/**
 * A summarizer backend on any AI SDK model: `summarizeOlder` hands it the older part of the
 * conversation (untrusted data, rendered as a record) and it asks for the sectioned summary.
 *
 * @example
 * ```ts
 * import { openai } from '@ai-sdk/openai';
 * import { contextWindowTrigger, createCompactor } from 'loopkeeper';
 * import { aiSdkSummarizer } from 'loopkeeper/ai-sdk';
 *
 * const compactor = createCompactor({
 *   trigger: contextWindowTrigger({ window: 128_000 }),
 *   backend: aiSdkSummarizer({ model: openai('gpt-4o-mini') }),
 * });
 * ```
 */
export function aiSdkSummarizer({
  model,
  maxInputTokens = DEFAULT_SUMMARY_INPUT_TOKENS,
  prompt = DEFAULT_SUMMARY_PROMPT,
  maxOutputTokens,
  temperature,
  maxRetries = 0,
}: AiSdkSummarizerOptions): CompactionBackend {
  if (!(maxInputTokens > 0)) {
    throw new ConfigError(
      `aiSdkSummarizer: maxInputTokens must be positive, got ${maxInputTokens}`,
      {
        code: 'config_invalid_option',
      },
    );
  }
  const modelName = typeof model === 'string' ? model : model.modelId;

  async function summarize({
    transcript,
    previousSummary,
    signal,
  }: SummaryRequest): Promise<SummaryResult> {
    const rendered = renderSummaryInput(
      previousSummary === undefined ? { transcript } : { transcript, previousSummary },
    );
    let result: Awaited<ReturnType<typeof generateText>>;
    try {
      result = await generateText({
        model,
        system: prompt,
        prompt: summaryUserMessage(rendered),
        abortSignal: signal,
        maxRetries,
        ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
        ...(temperature === undefined ? {} : { temperature }),
      });
    } catch (error) {
      throw new CompactionError(
        `aiSdkSummarizer: the summary request to ${modelName} failed: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error, code: signal.aborted ? 'summary_aborted' : 'summary_failed' },
      );
    }
    const text = validateSummaryText(result.text);
    const { inputTokens, outputTokens } = result.usage;
    return inputTokens === undefined || outputTokens === undefined
      ? { text }
      : { text, usage: { promptTokens: inputTokens, completionTokens: outputTokens } };
  }

  return { name: `ai-sdk:${modelName}`, maxInputTokens, summarize };
}
