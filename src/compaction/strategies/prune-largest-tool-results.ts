import type { Item, ToolResultItem } from '../../transcript/types.js';
import { requireNonNegative } from '../helpers/options.js';
import { changedResult, skippedResult } from '../helpers/result.js';
import {
  defaultToolOutputPlaceholder,
  isPrunedToolResult,
  pruneToolOutput,
  type ToolOutputPlaceholder,
} from '../helpers/tool-output-placeholder.js';
import type { CompactionStrategy } from '../types.js';

export interface PruneLargestToolResultsOptions {
  /** Stop once the transcript holds at most this many tokens; default the request's `budget.targetTokens`. */
  readonly targetTokens?: number;
  /** Text that replaces the output; by default it says how large it was and to re-run the tool. */
  readonly placeholder?: ToolOutputPlaceholder;
}

/**
 * Prunes the largest tool outputs first, anywhere in the transcript, until it is under the
 * target. This is the answer to a payload-too-large (HTTP 413) rejection, where one huge
 * output is usually the cause and no recent tail can be protected.
 *
 * @example
 * ```ts
 * import { pruneLargestToolResults } from 'loopkeeper/compaction';
 * import { createTokenCounter } from 'loopkeeper';
 *
 * const { transcript } = await pruneLargestToolResults({ targetTokens: 1_000 }).apply(
 *   {
 *     transcript: [
 *       { kind: 'assistant', id: 'a1', toolCalls: [{ id: 'c1', name: 'cat', arguments: '{}' }] },
 *       {
 *         kind: 'toolResult',
 *         id: 'r1',
 *         callId: 'c1',
 *         toolName: 'cat',
 *         content: 'x'.repeat(50_000),
 *         isError: false,
 *       },
 *     ],
 *     reason: 'payload_too_large',
 *     budget: { maxTokens: 2_000, targetTokens: 1_000 },
 *   },
 *   { tokens: await createTokenCounter(), signal: new AbortController().signal },
 * );
 * ```
 */
export function pruneLargestToolResults({
  targetTokens,
  placeholder = defaultToolOutputPlaceholder,
}: PruneLargestToolResultsOptions = {}): CompactionStrategy {
  if (targetTokens !== undefined) {
    requireNonNegative('pruneLargestToolResults', 'targetTokens', targetTokens);
  }
  return {
    name: 'pruneLargestToolResults',
    async apply({ transcript, budget }, { tokens }) {
      const target = targetTokens ?? budget.targetTokens;
      let current = tokens.count(transcript);
      if (current <= target) return skippedResult(transcript, tokens, 'under_target');

      const candidates = transcript
        .map((item, index) => ({ item, index }))
        .filter(
          (entry): entry is { item: ToolResultItem; index: number } =>
            entry.item.kind === 'toolResult' && !isPrunedToolResult(entry.item),
        )
        .map((entry) => ({ ...entry, size: tokens.countItem(entry.item) }))
        // Largest first; equal sizes oldest first, so the order is deterministic.
        .sort((left, right) => right.size - left.size || left.index - right.index);

      const output: Item[] = [...transcript];
      let itemsChanged = 0;
      for (const { item, index } of candidates) {
        if (current <= target) break;
        const pruned = pruneToolOutput(item, placeholder, tokens);
        if (pruned === undefined) continue;
        output[index] = pruned.item;
        itemsChanged += 1;
        current -= pruned.saved;
      }
      if (itemsChanged === 0) return skippedResult(transcript, tokens, 'nothing_to_prune');
      const result = changedResult(transcript, output, tokens, { itemsRemoved: 0, itemsChanged });
      return {
        transcript: result.transcript,
        metadata: { ...result.metadata, reachedTarget: tokens.count(output) <= target },
      };
    },
  };
}
