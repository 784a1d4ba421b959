import type { AssistantItem, Item } from '../../transcript/types.js';
import { isEmptyAssistant, keptEmptyAssistant } from '../helpers/assistant.js';
import { deriveItem } from '../helpers/derived-item.js';
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
   * Drop an assistant item left with no text and no tool calls (the seed's
   * `drop_empty_items`). Default true, as the seed. With false it stays in place with empty
   * text, so the turn keeps its shape and still renders as a valid chat message.
   */
  readonly dropEmpty?: boolean;
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
    async apply({ transcript }, { tokens }) {
      const boundary = keepLastTurn ? latestTurnStart(transcript) : transcript.length;
      const output: Item[] = [];
      let itemsRemoved = 0;
      let itemsChanged = 0;
      transcript.forEach((item, index) => {
        if (index >= boundary || item.kind !== 'assistant' || (item.reasoning ?? []).length === 0) {
          output.push(item);
          return;
        }
        const { reasoning: _dropped, ...rest } = item;
        const stripped: AssistantItem = rest;
        if (isEmptyAssistant(stripped) && dropEmpty) {
          itemsRemoved += 1;
        } else {
          const kept = isEmptyAssistant(stripped) ? keptEmptyAssistant(stripped) : stripped;
          output.push(deriveItem(item, kept));
          itemsChanged += 1;
        }
      });
      if (itemsRemoved + itemsChanged === 0)
        return skippedResult(transcript, tokens, 'no-reasoning');
      return changedResult(transcript, output, tokens, { itemsRemoved, itemsChanged });
    },
  };
}
