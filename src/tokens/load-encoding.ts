import { ConfigError } from '../errors/config-error.js';
import type { TokenEncoding } from './types.js';

/**
 * The encodings `createTokenCounter` can load: `o200k_base` (the default, GPT-4o and later) and
 * `cl100k_base`.
 *
 * @example
 * ```ts
 * import { TOKEN_ENCODINGS } from 'loopkeeper/tokens';
 * import { createTokenCounter } from 'loopkeeper';
 *
 * const requested = process.env['LOOPKEEPER_ENCODING'] ?? 'o200k_base';
 * const encoding = TOKEN_ENCODINGS.find((name) => name === requested) ?? 'o200k_base';
 * const counter = await createTokenCounter({ encoding });
 * ```
 */
export const TOKEN_ENCODINGS: readonly TokenEncoding[] = ['o200k_base', 'cl100k_base'];

/** The part of a gpt-tokenizer encoding that loopkeeper calls. */
export interface Tokenizer {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
}

export interface LoadedEncoding {
  readonly encoding: TokenEncoding;
  readonly tokenizer: Tokenizer;
  /** The encoding's pre-tokenizer pattern: byte-pair merges never cross its pieces. */
  readonly splitPattern: RegExp;
}

/*
 * One literal import per encoding (not a template string) so bundlers can see and split them.
 * Both are dynamic: the ranks module costs about 0.5 s and ~65 MB, and importing loopkeeper
 * must stay cheap for hosts that never count tokens.
 */
const loaders: Record<TokenEncoding, () => Promise<LoadedEncoding>> = {
  o200k_base: async () => {
    const [module, constants] = await Promise.all([
      import('gpt-tokenizer/encoding/o200k_base'),
      import('gpt-tokenizer/encodingParams/constants'),
    ]);
    return {
      encoding: 'o200k_base',
      tokenizer: module.default,
      splitPattern: constants.O200K_TOKEN_SPLIT_REGEX,
    };
  },
  cl100k_base: async () => {
    const [module, constants] = await Promise.all([
      import('gpt-tokenizer/encoding/cl100k_base'),
      import('gpt-tokenizer/encodingParams/constants'),
    ]);
    return {
      encoding: 'cl100k_base',
      tokenizer: module.default,
      splitPattern: constants.CL100K_TOKEN_SPLIT_REGEX,
    };
  },
};

// Promises, not results, are cached so concurrent first callers share one load.
const loading = new Map<TokenEncoding, Promise<LoadedEncoding>>();

export function isTokenEncoding(value: unknown): value is TokenEncoding {
  return typeof value === 'string' && (TOKEN_ENCODINGS as readonly string[]).includes(value);
}

/** Loads an encoding once per process; later calls resolve from the cache. */
export function loadEncoding({
  encoding,
}: {
  readonly encoding: TokenEncoding;
}): Promise<LoadedEncoding> {
  if (!isTokenEncoding(encoding)) {
    return Promise.reject(
      new ConfigError(
        `Unknown token encoding ${JSON.stringify(encoding)}; expected one of ${TOKEN_ENCODINGS.join(', ')}.`,
        { code: 'unknown_encoding' },
      ),
    );
  }
  const cached = loading.get(encoding);
  if (cached !== undefined) return cached;
  const pending = loaders[encoding]().catch((error: unknown) => {
    // A failed load must not poison the cache: the next caller tries again.
    loading.delete(encoding);
    throw new ConfigError(`Could not load token encoding ${encoding}.`, {
      cause: error,
      code: 'encoding_load_failed',
    });
  });
  loading.set(encoding, pending);
  return pending;
}
