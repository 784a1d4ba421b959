/**
 * How a chat request is billed around the text itself, for gpt-4-style chat formats
 * (gpt-4, gpt-4o, o-series): see docs/tokens.md for the sources of each number.
 */

/** `<|im_start|>`, `<|im_sep|>` and `<|im_end|>` around every message (plus its role). */
export const MESSAGE_OVERHEAD_TOKENS = 3;

/** A `name` on a message costs its own tokens plus one separator. */
export const NAME_OVERHEAD_TOKENS = 1;

/** Each tool call costs its name, its arguments and this framing. */
export const TOOL_CALL_OVERHEAD_TOKENS = 3;

/** Every request ends with `<|im_start|>assistant<|im_sep|>`, priming the reply. */
export const REPLY_PRIMING_TOKENS = 3;

/**
 * Images are billed by size, which an image part does not carry: a low-detail image is a
 * flat 85 tokens; high and auto detail are estimated as a 1024×1024 image (85 + 4 tiles × 170).
 */
export const IMAGE_TOKENS = { low: 85, high: 765, auto: 765 } as const;

/** The chat role each item kind is rendered with. */
export const ITEM_ROLES = {
  user: 'user',
  assistant: 'assistant',
  toolResult: 'tool',
  context: 'system',
} as const;

export type ChatRole = (typeof ITEM_ROLES)[keyof typeof ITEM_ROLES];
