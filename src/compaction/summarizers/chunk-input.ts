import { CompactionError } from '../../errors/compaction-error.js';
import type { TokenCounter } from '../../tokens/types.js';
import type { Item } from '../../transcript/types.js';
import { atomicSpans } from '../helpers/structure.js';
import { renderItemForSummary, renderSummaryInput } from './render.js';
import { shrinkItemForSummary, truncateTextToTokens } from './truncate.js';

/** The input a summarizer backend takes per call unless it says otherwise. */
export const DEFAULT_SUMMARY_INPUT_TOKENS = 100_000;

export interface SummaryInputSizeOptions {
  readonly transcript: readonly Item[];
  readonly previousSummary?: string | undefined;
  readonly tokens: TokenCounter;
}

/**
 * Tokens of the summarizer input as `renderSummaryInput` renders it: what a call's limit is measured on.
 *
 * @example
 * ```ts
 * import { summaryInputTokens } from 'loopkeeper/compaction';
 * import { createTokenCounter } from 'loopkeeper';
 *
 * const size = summaryInputTokens({
 *   transcript: [{ kind: 'user', id: 'u1', content: 'Fix the flaky test.' }],
 *   tokens: await createTokenCounter(),
 * });
 * console.log(`the summarizer would read ${size} tokens`);
 * ```
 */
export function summaryInputTokens({
  transcript,
  previousSummary,
  tokens,
}: SummaryInputSizeOptions): number {
  return tokens.countText(
    renderSummaryInput(
      previousSummary === undefined ? { transcript } : { transcript, previousSummary },
    ),
  );
}

export interface FitPreviousSummaryOptions {
  readonly previousSummary: string;
  readonly maxInputTokens: number;
  readonly tokens: TokenCounter;
}

/**
 * The previous summary cut to at most half of the backend's input limit, so every call keeps
 * room for new conversation. Summaries are small in practice; this only bites when they are not.
 */
export function fitPreviousSummary({
  previousSummary,
  maxInputTokens,
  tokens,
}: FitPreviousSummaryOptions): { text: string; truncated: boolean } {
  // With no limit (the extractive summarizer's default) there is nothing to measure against.
  if (maxInputTokens === Number.POSITIVE_INFINITY)
    return { text: previousSummary, truncated: false };
  const share = Math.floor(maxInputTokens / 2);
  if (summaryInputTokens({ transcript: [], previousSummary, tokens }) <= share) {
    return { text: previousSummary, truncated: false };
  }
  let budget = share;
  for (;;) {
    const text = truncateTextToTokens({ text: previousSummary, maxTokens: budget, tokens });
    const size = summaryInputTokens({ transcript: [], previousSummary: text, tokens });
    if (size <= share) return { text, truncated: true };
    budget -= size - share + 8;
    if (budget <= 0) {
      throw new CompactionError(
        `The summarizer's maxInputTokens (${maxInputTokens}) leaves no room for the previous summary`,
        { code: 'summary_input_too_small' },
      );
    }
  }
}

export interface SummaryChunk {
  readonly items: readonly Item[];
  /** How many of `items` are copies cut down to fit the limit. */
  readonly truncatedItems: number;
}

export interface SummaryChunker {
  readonly done: () => boolean;
  /** The next run of items that, rendered with `previousSummary`, fits the limit. */
  readonly next: (previousSummary: string | undefined) => SummaryChunk;
}

export interface SummaryChunkerOptions {
  /** The part to summarize; chunks end where the tool protocol allows (whole tool pairs and batches). */
  readonly items: readonly Item[];
  readonly maxInputTokens: number;
  readonly tokens: TokenCounter;
}

/**
 * Cuts the part to summarize into chunks that each fit a backend's input limit together with the
 * summary so far. Chunks end at group boundaries; a group too large for a call of its own is
 * split into its items (the summarizer reads them as quoted data, so a split pair is harmless
 * there), and a single item too large alone is cut down (head and tail kept, with a note).
 * Chunks are planned one at a time because each depends on the size of the summary before it.
 */
export function createSummaryChunker({
  items,
  maxInputTokens,
  tokens,
}: SummaryChunkerOptions): SummaryChunker {
  // A backend without a limit (the extractive summarizer's default) takes it all in one call:
  // nothing is split or measured.
  if (maxInputTokens === Number.POSITIVE_INFINITY) {
    let given = items.length === 0;
    return {
      done: () => given,
      next: () => {
        given = true;
        return { items, truncatedItems: 0 };
      },
    };
  }
  const queue: Item[][] = atomicSpans(items).map(({ start, end }) => items.slice(start, end));
  let position = 0;
  const sizes = new WeakMap<Item, number>();
  const itemSize = (item: Item): number => {
    let size = sizes.get(item);
    if (size === undefined) {
      // One more token for the newline that joins items.
      size = tokens.countText(renderItemForSummary(item, 1)) + 1;
      sizes.set(item, size);
    }
    return size;
  };
  const groupSize = (group: readonly Item[]): number =>
    group.reduce((total, item) => total + itemSize(item), 0);

  const shrunkCopies = new WeakSet<Item>();
  const splitGroupAt = (index: number): void => {
    const group = queue[index] ?? [];
    queue.splice(index, 1, ...group.map((item) => [item]));
  };

  function next(previousSummary: string | undefined): SummaryChunk {
    const measure = (items: readonly Item[]): number =>
      summaryInputTokens({ transcript: items, previousSummary, tokens });
    const base = measure([]);
    // Room for one item, after the fixed part and a small margin for tokenizer joins.
    const itemRoom = maxInputTokens - base - 8;
    if (itemRoom <= 16) {
      throw new CompactionError(
        `The summarizer's maxInputTokens (${maxInputTokens}) leaves no room for conversation next to the summary so far (${base} tokens)`,
        { code: 'summary_input_too_small' },
      );
    }
    const taken: Item[][] = [];
    let truncatedItems = 0;
    let estimate = base;

    const shrinkAt = (index: number, room: number): void => {
      const original = queue[index]?.[0];
      if (original === undefined) return;
      const shrunk = shrinkItemForSummary({
        item: original,
        maxTokens: room,
        tokens,
        measure: itemSize,
      });
      if (shrunk === undefined) {
        throw new CompactionError(
          `An item (${original.id}) cannot be cut down to the summarizer's maxInputTokens (${maxInputTokens})`,
          { code: 'summary_input_too_small' },
        );
      }
      if (shrunk !== original && !shrunkCopies.has(original)) truncatedItems += 1;
      shrunkCopies.add(shrunk);
      queue[index] = [shrunk];
    };

    while (position < queue.length) {
      const group = queue[position] ?? [];
      const size = groupSize(group);
      if (estimate + size <= maxInputTokens) {
        taken.push(group);
        estimate += size;
        position += 1;
        continue;
      }
      if (taken.length > 0) break;
      if (group.length > 1) {
        splitGroupAt(position);
        continue;
      }
      shrinkAt(position, itemRoom);
      taken.push(queue[position] ?? []);
      position += 1;
      break;
    }

    // The estimate adds items up one by one; the real rendering decides.
    let overshoot = measure(taken.flat()) - maxInputTokens;
    while (overshoot > 0) {
      if (taken.length > 1) {
        taken.pop();
        position -= 1;
      } else if ((taken[0]?.length ?? 0) > 1) {
        taken.pop();
        position -= 1;
        splitGroupAt(position);
        taken.push(queue[position] ?? []);
        position += 1;
      } else {
        const only = taken.pop()?.[0];
        position -= 1;
        shrinkAt(position, (only === undefined ? 0 : itemSize(only)) - overshoot - 8);
        taken.push(queue[position] ?? []);
        position += 1;
      }
      overshoot = measure(taken.flat()) - maxInputTokens;
    }
    return { items: taken.flat(), truncatedItems };
  }

  return { done: () => position >= queue.length, next };
}
