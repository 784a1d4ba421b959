import type { TokenCounter } from '../../tokens/types.js';
import type { Item, UserItem } from '../../transcript/types.js';
import { clipItemToFit } from '../helpers/clip-text.js';
import { latestTurnStart } from '../helpers/structure.js';

/**
 * The least a clipped request keeps, so it still says what the user asked for.
 *
 * @example
 * ```ts
 * import { MIN_CLIPPED_REQUEST_TOKENS } from 'loopkeeper/compaction';
 *
 * // A window whose request budget falls below this cannot hold even a clipped request.
 * const requestBudget = 4_096 - 4_000;
 * if (requestBudget < MIN_CLIPPED_REQUEST_TOKENS) console.warn('the window is too small');
 * ```
 */
export const MIN_CLIPPED_REQUEST_TOKENS = 96;

/**
 * A request's clip keeps the facts of what it cuts before its prose: every path, error line and
 * identifier that fits in half of what is kept, beside its opening (what the user asked; at least
 * its first 320 characters) and its end (where a long request usually states the task after its
 * material).
 */
const requestShares = { head: 0.3, tail: 0.2, facts: 0.5, allFacts: true, minHead: 320 } as const;

/** The most of the prune's room a clipped request keeps. */
const requestShare = 0.5;

const requestAdvice =
  'The whole request is in the session log; ask the user to restate any part the work needs.';

/** The request's text when it is plain text (a string, or text parts only); else undefined. */
function plainText(item: UserItem): string | undefined {
  if (typeof item.content === 'string') return item.content;
  if (item.content.every((part) => part.type === 'text')) {
    return item.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  }
  return undefined;
}

/**
 * The very last step of the emergency prune, for a latest user request so long that it cannot
 * sit beside its newest exchange and the summary within `maxTokens`: its middle is cut (head and
 * tail verbatim, a note of what was cut with the paths, errors and identifiers in it), never
 * below `MIN_CLIPPED_REQUEST_TOKENS`. Only the request the model sees is cut; the log keeps the
 * whole one. Returns `transcript` itself when it fits, the request is not plain text, or no cut
 * within that floor would make it fit.
 *
 * @example
 * ```ts
 * import { clipLatestRequest } from 'loopkeeper/compaction';
 * import { createTokenCounter } from 'loopkeeper';
 *
 * const tokens = await createTokenCounter();
 * const huge = 'log line\n'.repeat(20_000);
 * const clipped = clipLatestRequest([{ kind: 'user', id: 'u1', content: huge }], tokens, 2_000);
 * console.log(tokens.count(clipped)); // at most about 2k
 * ```
 */
export function clipLatestRequest(
  transcript: readonly Item[],
  tokens: TokenCounter,
  maxTokens: number,
  {
    originalOf,
  }: {
    /**
     * The log's original of an item a compaction changed. A request clipped before is clipped
     * again from its original text, so a clip never cuts into an earlier clip's note.
     */
    readonly originalOf?: ((item: Item) => Item | undefined) | undefined;
  } = {},
): readonly Item[] {
  const total = tokens.count(transcript);
  if (total <= maxTokens) return transcript;
  const start = latestTurnStart(transcript);
  const current = transcript[start];
  if (current?.kind !== 'user') return transcript;
  // A request that must be cut keeps at most half of the room, so the work that follows it
  // (the newest exchange, the summary, the next steps) is not squeezed into a clip per step.
  const allowed = Math.min(
    tokens.countItem(current) - (total - maxTokens),
    Math.max(MIN_CLIPPED_REQUEST_TOKENS, Math.floor(maxTokens * requestShare)),
  );
  const clipped = clipRequest({ current, allowed, tokens, originalOf });
  return clipped === undefined
    ? transcript
    : [...transcript.slice(0, start), clipped, ...transcript.slice(start + 1)];
}

/**
 * A copy of the request `current` cut to `allowed` tokens (from its log original when it was cut
 * before), or undefined when that is under `MIN_CLIPPED_REQUEST_TOKENS`, the request is not
 * plain text, or no cut fits.
 */
export function clipRequest({
  current,
  allowed,
  tokens,
  originalOf,
}: {
  readonly current: UserItem;
  readonly allowed: number;
  readonly tokens: TokenCounter;
  readonly originalOf?: ((item: Item) => Item | undefined) | undefined;
}): UserItem | undefined {
  if (allowed < MIN_CLIPPED_REQUEST_TOKENS) return undefined;
  const original = originalOf?.(current);
  const request = original?.kind === 'user' ? original : current;
  const text = plainText(request);
  if (text === undefined) return undefined;
  return clipItemToFit({
    item: request,
    text,
    size: tokens.countItem(request),
    maxTokens: allowed,
    withText: (content) => ({ ...request, content }),
    tokens,
    advice: requestAdvice,
    shares: requestShares,
  });
}
