import type { TokenCounter } from '../../tokens/types.js';
import { sliceText } from '../../transcript/code-points.js';
import type { Item } from '../../transcript/types.js';
import { deriveItem } from './derived-item.js';
import { toolOutputFacts } from './tool-output-placeholder.js';

/** Ids of clipped copies start with this, so a clipped output is never clipped again. */
export const CLIPPED_ID_PREFIX = 'clipped';

/**
 * Cut `text` at a line end at or before `at` when one is near (past half of `at` and past
 * `floor`, the fewest characters the head must keep); else at `at`.
 */
function headUntil(text: string, at: number, floor = 0): string {
  const newline = text.lastIndexOf('\n', at);
  return newline > Math.max(at / 2, floor) ? text.slice(0, newline) : sliceText(text, 0, at);
}

/** Cut `text` at a line start at or after `length - keep` when one is near; else there. */
function tailFrom(text: string, keep: number): string {
  const from = text.length - keep;
  const newline = text.indexOf('\n', from);
  return newline >= 0 && newline < from + keep / 2
    ? text.slice(newline + 1)
    : sliceText(text, from);
}

/** How a clip shares its characters: head and tail verbatim, and the note's list of facts. */
export interface ClipShares {
  readonly head: number;
  readonly tail: number;
  /** The most of the kept characters the note's facts may take. */
  readonly facts: number;
  /** List every fact that fits, not only the first few of each kind. */
  readonly allFacts: boolean;
  /** The fewest characters the head keeps (a request's opening), up to 90% of the clip. */
  readonly minHead?: number;
}

/** A tool output's clip: the command echo and the final status matter most. */
const outputShares: ClipShares = { head: 0.4, tail: 0.25, facts: 0.4, allFacts: false };

/**
 * `content` cut to about `characters`: its head (40%) and tail (25%) verbatim, where an
 * output's command echo and its final status usually are, and between them a note of what was
 * cut with the paths, error lines and identifiers found in the cut part (the rest), and
 * `advice` on how to see the rest. `shares` changes the split (a request keeps more facts).
 */
export function clipText(
  content: string,
  characters: number,
  advice = 'Re-run the tool with a narrower request to see them.',
  shares: ClipShares = outputShares,
): string {
  const keep = Math.max(0, Math.floor(characters));
  // The head's floor gives way on a clip too small for it (at most 90% of what is kept).
  const headFloor = Math.min(shares.minHead ?? 0, Math.floor(keep * 0.9));
  const head = headUntil(content, Math.max(headFloor, Math.floor(keep * shares.head)), headFloor);
  const tail = tailFrom(content, Math.floor(keep * shares.tail));
  const middle = content.slice(head.length, content.length - tail.length);
  const lines = middle.split('\n').length - 1;
  const size =
    lines > 0 ? `${lines} lines, ${middle.length} characters` : `${middle.length} characters`;
  return `${head}\n[… ${size} cut by compaction.${toolOutputFacts(middle, Math.min(middle.length / 6, keep * shares.facts), shares.allFacts)} ${advice}]\n${tail}`;
}

/**
 * A copy of an item whose text is clipped (with `clipText`) until the copy counts at most
 * `maxTokens`: it starts from the text's own characters per token, then shrinks, at most six
 * tries. Undefined when no try fits.
 */
export function clipItemToFit<T extends Item>({
  item,
  text,
  size,
  maxTokens,
  withText,
  tokens,
  advice,
  shares,
}: {
  readonly item: T;
  readonly text: string;
  /** Tokens of `item` as it is. */
  readonly size: number;
  readonly maxTokens: number;
  /** `item` with its text replaced. */
  readonly withText: (clipped: string) => T;
  readonly tokens: TokenCounter;
  readonly advice?: string;
  readonly shares?: ClipShares;
}): T | undefined {
  let characters = (text.length * maxTokens) / size;
  for (let attempt = 0; attempt < 6 && characters >= 1; attempt += 1) {
    const clipped = deriveItem(
      item,
      withText(clipText(text, characters, advice, shares)),
      CLIPPED_ID_PREFIX,
    );
    const clippedSize = tokens.countItem(clipped);
    if (clippedSize <= maxTokens) return clipped;
    characters *= (0.9 * maxTokens) / clippedSize;
  }
  return undefined;
}
