import type { Item } from '../../transcript/types.js';
import { isEmptyAssistant, keptEmptyAssistant } from '../helpers/assistant.js';
import { deriveItem } from '../helpers/derived-item.js';
import { changedResult, skippedResult } from '../helpers/result.js';
import { latestTurnStart } from '../helpers/structure.js';
import type { CompactionStrategy } from '../types.js';

export interface DropFailedToolResultsOptions {
  /**
   * Drop an assistant item left with no text and no other calls. Default true. With false it
   * stays in place with empty
   * text, so the turn keeps its shape and still renders as a valid chat message.
   */
  readonly dropEmpty?: boolean;
}

/**
 * Removes failed tool results (`isError`) together with the calls that produced them, and an
 * assistant item with nothing left (no text, no other calls) unless `dropEmpty` is false. The
 * latest user turn is never touched: the model may be about to act on a failure it has just
 * seen, and taking it away would make it repeat the same call blind.
 *
 * @example
 * ```ts
 * import {
 *   createCompactor,
 *   dropFailedToolResults,
 *   pipeline,
 *   pruneToolResults,
 *   tokenBudgetTrigger,
 * } from 'loopkeeper';
 *
 * const compactor = createCompactor({
 *   trigger: tokenBudgetTrigger({ maxTokens: 16_000 }),
 *   strategy: pipeline(dropFailedToolResults(), pruneToolResults()),
 * });
 * ```
 */
export function dropFailedToolResults({
  dropEmpty = true,
}: DropFailedToolResultsOptions = {}): CompactionStrategy {
  return {
    name: 'dropFailedToolResults',
    async apply({ transcript }, { tokens }) {
      const boundary = latestTurnStart(transcript);
      // A result comes after its call and before the next user item, so both sides of every
      // failed pair found before the boundary lie before it.
      const failedCallIds = new Set<string>();
      for (const item of transcript.slice(0, boundary)) {
        if (item.kind === 'toolResult' && item.isError) failedCallIds.add(item.callId);
      }
      if (failedCallIds.size === 0) return skippedResult(transcript, tokens, 'no_failed_results');

      const output: Item[] = [];
      let itemsRemoved = 0;
      let itemsChanged = 0;
      let callsRemoved = 0;
      transcript.forEach((item, index) => {
        if (index >= boundary) {
          output.push(item);
        } else if (item.kind === 'toolResult' && failedCallIds.has(item.callId)) {
          itemsRemoved += 1;
        } else if (
          item.kind === 'assistant' &&
          (item.toolCalls ?? []).some((call) => failedCallIds.has(call.id))
        ) {
          const calls = item.toolCalls ?? [];
          const remaining = calls.filter((call) => !failedCallIds.has(call.id));
          callsRemoved += calls.length - remaining.length;
          const { toolCalls: _replaced, ...rest } = item;
          const trimmed = remaining.length === 0 ? rest : { ...rest, toolCalls: remaining };
          if (isEmptyAssistant(trimmed) && dropEmpty) {
            itemsRemoved += 1;
          } else {
            const kept = isEmptyAssistant(trimmed) ? keptEmptyAssistant(trimmed) : trimmed;
            output.push(deriveItem(item, kept));
            itemsChanged += 1;
          }
        } else {
          output.push(item);
        }
      });
      return changedResult(transcript, output, tokens, {
        itemsRemoved,
        itemsChanged,
        callsRemoved,
      });
    },
  };
}
