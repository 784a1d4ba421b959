/** The `loopkeeper/tokens` entry: exact token counting with a per-item cache, and calibration against reported usage. */

export { type Calibration, createCalibration } from './calibration.js';
export { countRequest } from './count-request.js';
export { countTokens } from './count-tokens.js';
export { createTokenCounter, type TokenCounterOptions } from './create-token-counter.js';
export { TOKEN_ENCODINGS } from './load-encoding.js';
export {
  IMAGE_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
  NAME_OVERHEAD_TOKENS,
  REPLY_PRIMING_TOKENS,
  TOOL_CALL_OVERHEAD_TOKENS,
} from './message-overhead.js';
export type { TokenCounter, TokenEncoding } from './types.js';
