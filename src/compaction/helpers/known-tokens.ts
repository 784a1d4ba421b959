import type { TokenCounter } from '../../tokens/types.js';
import type { CompactionRequest, CompactionResult } from '../types.js';

interface Known {
  readonly counter: TokenCounter;
  readonly tokens: number;
}

/*
 * Totals a built-in caller or strategy already knows, keyed by the request or result object it
 * made (each is made for one call and read at once), so a pipeline step does not count the
 * whole transcript again to learn what the step before it just computed. A custom strategy's
 * result is never in here: its transcript is counted.
 */
const requestTokens = new WeakMap<CompactionRequest, Known>();
const resultTokens = new WeakMap<CompactionResult, Known>();

/** `request` remembered with `tokens.count(request.transcript)`, which the caller knows. */
export function withKnownTokens<T extends CompactionRequest>(
  request: T,
  counter: TokenCounter,
  tokens: number,
): T {
  requestTokens.set(request, { counter, tokens });
  return request;
}

/** `counter.count(request.transcript)`, without counting when the caller passed it along. */
export function requestTokensOf(request: CompactionRequest, counter: TokenCounter): number {
  const known = requestTokens.get(request);
  return known !== undefined && known.counter === counter
    ? known.tokens
    : counter.count(request.transcript);
}

/** `result` remembered with the exact total of its transcript, as its strategy computed it. */
export function resultWithKnownTokens<Result extends CompactionResult>(
  result: Result,
  counter: TokenCounter,
  tokens: number,
): Result {
  resultTokens.set(result, { counter, tokens });
  return result;
}

/** `counter.count(result.transcript)`, without counting when a built-in strategy knows it. */
export function resultTokensOf(result: CompactionResult, counter: TokenCounter): number {
  const known = resultTokens.get(result);
  return known !== undefined && known.counter === counter
    ? known.tokens
    : counter.count(result.transcript);
}
