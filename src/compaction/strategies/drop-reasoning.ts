import type { AssistantItem, Item } from '../../transcript/types.js';
import { isEmptyAssistant, keptEmptyAssistant } from '../helpers/assistant.js';
import { deriveItem } from '../helpers/derived-item.js';
import { requestTokensOf } from '../helpers/known-tokens.js';
import { changedResult, skippedResult } from '../helpers/result.js';
import { latestTurnStart } from '../helpers/structure.js';
import type { CompactionStrategy } from '../types.js';

export interface DropReasoningOptions {
  /**
   * Keep reasoning in the latest user turn, where the model may still be relying on it
   * (some providers want the reasoning of an unfinished tool loop sent back). Default true.
   */
  readonly keepLastTurn?: boolean;
  /**
   * Drop an assistant item left with no text and no tool calls. Default true. With false it
   * stays in place with empty
   * text, so the turn keeps its shape and still renders as a valid chat message.
   */
  readonly dropEmpty?: boolean;
}

/**
 * The stripped copy made of each assistant item, so every later pass over the same item gets
 * the same copy (same id, count already cached) instead of a new one to count again. Whether a
 * copy is kept with empty text depends on the item alone, so one copy per item is all there is.
 */
const strippedCopies = new WeakMap<AssistantItem, AssistantItem>();

function hasReasoning(item: Item): item is AssistantItem {
  return item.kind === 'assistant' && item.reasoning !== undefined && item.reasoning.length > 0;
}

function strippedCopy(item: AssistantItem, stripped: AssistantItem): AssistantItem {
  const made = strippedCopies.get(item);
  if (made !== undefined) return made;
  const kept = isEmptyAssistant(stripped) ? keptEmptyAssistant(stripped) : stripped;
  const copy = deriveItem(item, kept);
  strippedCopies.set(item, copy);
  return copy;
}

/**
 * Strips reasoning parts from assistant items. Reasoning is the cheapest thing to lose: the
 * text and tool calls it led to stay. An assistant item left with no text and no tool calls
 * is dropped, or kept with empty text when `dropEmpty` is false.
 *
 * @example
 * ```ts
 * import { createTokenCounter, dropReasoning } from 'loopkeeper';
 *
 * const { transcript } = await dropReasoning().apply(
 *   {
 *     transcript: [{ kind: 'assistant', id: 'a1', text: 'Done.', reasoning: [{ text: 'Hmm…' }] }],
 *     reason: 'threshold',
 *     budget: { maxTokens: 8_000, targetTokens: 6_000 },
 *   },
 *   { tokens: await createTokenCounter(), signal: new AbortController().signal },
 * );
 * ```
 */
export function dropReasoning({
  keepLastTurn = true,
  dropEmpty = true,
}: DropReasoningOptions = {}): CompactionStrategy {
  return {
    name: 'dropReasoning',
    async apply(request, { tokens }) {
      const { transcript } = request;
      // Most transcripts hold no reasoning at all: then there is no turn boundary to find.
      if (!transcript.some(hasReasoning)) {
        return skippedResult(
          transcript,
          tokens,
          'no_reasoning',
          {},
          requestTokensOf(request, tokens),
        );
      }
      const boundary = keepLastTurn ? latestTurnStart(transcript) : transcript.length;
      const output: Item[] = [];
      let itemsRemoved = 0;
      let itemsChanged = 0;
      // What the changes save, item by item: the total after is the total before less this.
      let saved = 0;
      transcript.forEach((item, index) => {
        if (index >= boundary || !hasReasoning(item)) {
          output.push(item);
          return;
        }
        const { reasoning: _dropped, ...rest } = item;
        const stripped: AssistantItem = rest;
        if (isEmptyAssistant(stripped) && dropEmpty) {
          itemsRemoved += 1;
          saved += tokens.countItem(item);
        } else {
          const copy = strippedCopy(item, stripped);
          output.push(copy);
          itemsChanged += 1;
          saved += tokens.countItem(item) - tokens.countItem(copy);
        }
      });
      const tokensBefore = requestTokensOf(request, tokens);
      if (itemsRemoved + itemsChanged === 0)
        return skippedResult(transcript, tokens, 'no_reasoning', {}, tokensBefore);
      return changedResult(
        transcript,
        output,
        tokens,
        { itemsRemoved, itemsChanged },
        { tokensBefore, tokensAfter: tokensBefore - saved },
      );
    },
  };
}
