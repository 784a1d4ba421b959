import OpenAI from 'openai';
import { ConfigError } from '../errors/config-error.js';
import { retryRequests } from './retry-requests.js';

/** The options both OpenAI adapters share, checked the same way. */
export interface OpenAIConnectionOptions {
  readonly client?: OpenAI | undefined;
  readonly baseURL?: string | undefined;
  readonly apiKey?: string | undefined;
  readonly model: string;
  readonly maxRetries?: number | undefined;
  readonly maxRetryWaitMs: number;
  readonly timeout?: number | undefined;
}

/** One attempt's request options: the SDK never retries (its sleep ignores the signal); we do. */
export interface AttemptOptions {
  readonly maxRetries: 0;
  readonly timeout?: number;
  readonly signal: AbortSignal;
  readonly headers: Record<string, string>;
}

/**
 * Checks the shared options (throwing `ConfigError` that names `adapter`) and returns the client
 * and a function that runs one request with the adapter's own capped, abortable retries.
 */
export function openAIConnection(
  adapter: string,
  { client, baseURL, apiKey, model, maxRetries, maxRetryWaitMs, timeout }: OpenAIConnectionOptions,
): {
  readonly openai: OpenAI;
  readonly withRetries: <T>(
    create: (options: AttemptOptions) => Promise<T>,
    signal: AbortSignal,
  ) => Promise<T>;
} {
  if (typeof model !== 'string' || model === '') {
    throw new ConfigError(`${adapter} needs a non-empty \`model\` name.`);
  }
  if (maxRetries !== undefined && !(Number.isInteger(maxRetries) && maxRetries >= 0)) {
    throw new ConfigError(
      `${adapter}: maxRetries must be a whole number >= 0 (got ${maxRetries}).`,
    );
  }
  if (timeout !== undefined && !(Number.isInteger(timeout) && timeout > 0)) {
    throw new ConfigError(
      `${adapter}: timeout must be a whole number of milliseconds > 0 (got ${timeout}).`,
    );
  }
  if (!(Number.isInteger(maxRetryWaitMs) && maxRetryWaitMs >= 0)) {
    throw new ConfigError(
      `${adapter}: maxRetryWaitMs must be a whole number of milliseconds >= 0 (got ${maxRetryWaitMs}).`,
    );
  }
  const openai = client ?? createClient({ adapter, baseURL, apiKey, maxRetries: maxRetries ?? 2 });
  const retries = maxRetries ?? openai.maxRetries;
  return {
    openai,
    withRetries: (create, signal) =>
      retryRequests(
        (retry) =>
          create({
            maxRetries: 0,
            ...(timeout !== undefined && { timeout }),
            signal,
            headers: { 'x-stainless-retry-count': String(retry) },
          }),
        { maxRetries: retries, maxRetryWaitMs, signal },
      ),
  };
}

function createClient({
  adapter,
  baseURL,
  apiKey,
  maxRetries,
}: {
  adapter: string;
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
      `${adapter} needs a \`client\`, or an \`apiKey\` (and usually a \`baseURL\`): ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
