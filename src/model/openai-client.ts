import type OpenAI from 'openai';
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
  /** The client: the host's, or one built (and the SDK imported) at the first request. */
  readonly openai: () => Promise<OpenAI>;
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
  const openai = client ?? lazyClient({ adapter, baseURL, apiKey, maxRetries: maxRetries ?? 2 });
  const retries = maxRetries ?? (client === undefined ? 2 : client.maxRetries);
  return {
    openai: typeof openai === 'function' ? openai : () => Promise.resolve(openai),
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

// The SDK (about 150 modules, ~13 MB) is imported with the first client loopkeeper builds, not
// with loopkeeper: a host with a client of its own, or another model, never loads it through us.
let sdk: Promise<typeof import('openai')> | undefined;

function loadSdk(): Promise<typeof import('openai')> {
  sdk ??= import('openai').catch((error: unknown) => {
    sdk = undefined;
    throw error;
  });
  return sdk;
}

/**
 * A client built at its first use. What the SDK's constructor refuses for the options we pass
 * (no key given and none in the environment) is refused now, when the adapter is made.
 */
export function lazyClient({
  adapter,
  baseURL,
  apiKey,
  maxRetries,
}: {
  adapter: string;
  baseURL: string | undefined;
  apiKey: string | undefined;
  maxRetries?: number | undefined;
}): () => Promise<OpenAI> {
  if (
    !apiKey &&
    readEnvironment('OPENAI_API_KEY') === undefined &&
    readEnvironment('OPENAI_ADMIN_KEY') === undefined
  ) {
    throw new ConfigError(
      `${adapter} needs a \`client\`, or an \`apiKey\` (and usually a \`baseURL\`): no apiKey was given and the OPENAI_API_KEY environment variable is missing or empty.`,
    );
  }
  // Started now, so the first request rarely waits for it; a failed import is retried then.
  loadSdk().catch(() => undefined);
  let built: Promise<OpenAI> | undefined;
  return () => {
    built ??= loadSdk().then(({ default: OpenAI }) =>
      createClient(OpenAI, { adapter, baseURL, apiKey, maxRetries }),
    );
    return built;
  };
}

/** An environment variable as the SDK reads it: trimmed, and unset when empty. */
function readEnvironment(name: string): string | undefined {
  return globalThis.process?.env?.[name]?.trim() || undefined;
}

function createClient(
  OpenAI: typeof import('openai').default,
  {
    adapter,
    baseURL,
    apiKey,
    maxRetries,
  }: {
    adapter: string;
    baseURL: string | undefined;
    apiKey: string | undefined;
    maxRetries: number | undefined;
  },
): OpenAI {
  try {
    return new OpenAI({
      ...(maxRetries !== undefined && { maxRetries }),
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
