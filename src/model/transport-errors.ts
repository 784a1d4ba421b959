import { describeThrownText } from '../vocabulary/index.js';

/**
 * How providers word a prompt that does not fit the window, whichever adapter carries it:
 * OpenAI and compatible servers (vLLM, llama.cpp, LiteLLM), Anthropic (`prompt is too long:
 * 210000 tokens > 200000 maximum`), Google (`input token count … exceeds the maximum`), Bedrock
 * (`Input is too long`), Mistral, Groq.
 */
export const CONTEXT_OVERFLOW_PATTERN =
  /maximum context length|context length exceeded|context_length_exceeded|context window|prompt is too long|input is too long|too many (?:input )?tokens|input token count.*exceeds|exceeds the maximum number of tokens/i;

/** undici reports a cut connection as `TypeError('terminated')` caused by a socket error. */
export function isSocketError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const cause: unknown = error.cause;
  const code =
    typeof cause === 'object' && cause !== null && 'code' in cause ? String(cause.code) : '';
  return (
    code.startsWith('UND_ERR') ||
    ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT'].includes(code) ||
    (error instanceof TypeError && /terminated|fetch failed/i.test(error.message))
  );
}

/** A thrown value's message, with its cause's when that says something more. */
export function messageWithCause(error: unknown): string {
  if (!(error instanceof Error)) return describeThrownText(error);
  const cause: unknown = error.cause;
  return cause instanceof Error && cause.message !== error.message
    ? `${error.message} (${cause.message})`
    : error.message;
}
