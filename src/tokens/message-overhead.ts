/**
 * How a chat request is billed around the text itself, for gpt-4-style chat formats
 * (gpt-4, gpt-4o, o-series): see docs/tokens.md for the sources of each number.
 */

/**
 * `<|im_start|>`, `<|im_sep|>` and `<|im_end|>` around every message (plus its role).
 *
 * @example
 * ```ts
 * import { MESSAGE_OVERHEAD_TOKENS, REPLY_PRIMING_TOKENS } from 'loopkeeper/tokens';
 *
 * // The fixed cost of a request of ten empty messages.
 * console.log(10 * MESSAGE_OVERHEAD_TOKENS + REPLY_PRIMING_TOKENS);
 * ```
 */
export const MESSAGE_OVERHEAD_TOKENS = 3;

/**
 * A `name` on a message costs its own tokens plus one separator.
 *
 * @example
 * ```ts
 * import { NAME_OVERHEAD_TOKENS } from 'loopkeeper/tokens';
 * import { createTokenCounter } from 'loopkeeper';
 *
 * const counter = await createTokenCounter();
 * // A message with a `name` costs the name's tokens plus this.
 * console.log(counter.countText('alice') + NAME_OVERHEAD_TOKENS);
 * ```
 */
export const NAME_OVERHEAD_TOKENS = 1;

/**
 * Each tool call costs its name, its arguments and this framing.
 *
 * @example
 * ```ts
 * import { TOOL_CALL_OVERHEAD_TOKENS } from 'loopkeeper/tokens';
 *
 * // Three parallel calls cost their names and arguments plus this much each.
 * console.log(3 * TOOL_CALL_OVERHEAD_TOKENS);
 * ```
 */
export const TOOL_CALL_OVERHEAD_TOKENS = 3;

/**
 * Every request ends with `<|im_start|>assistant<|im_sep|>`, priming the reply.
 *
 * @example
 * ```ts
 * import { REPLY_PRIMING_TOKENS } from 'loopkeeper/tokens';
 * import { createTokenCounter } from 'loopkeeper';
 *
 * const counter = await createTokenCounter();
 * const items = counter.count([{ kind: 'user', id: 'u1', content: 'Hi' }]);
 * console.log(items + REPLY_PRIMING_TOKENS); // the whole request, as the provider counts it
 * ```
 */
export const REPLY_PRIMING_TOKENS = 3;

/**
 * Images are billed by size, which an image part does not carry: a low-detail image is a
 * flat 85 tokens; high and auto detail are estimated as a 1024×1024 image (85 + 4 tiles × 170).
 *
 * @example
 * ```ts
 * import { IMAGE_TOKENS } from 'loopkeeper/tokens';
 *
 * // What an image part is estimated at, by its detail level.
 * console.log(IMAGE_TOKENS.low, IMAGE_TOKENS.high);
 * ```
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
