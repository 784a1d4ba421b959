import type { Item } from '../../transcript/types.js';
import { isEmptyAssistant } from '../helpers/assistant.js';
import { deriveItem } from '../helpers/derived-item.js';
import { changedResult, skippedResult } from '../helpers/result.js';
import { latestTurnStart } from '../helpers/structure.js';
import type { CompactionStrategy } from '../types.js';

/**
 * Removes failed tool results (`isError`) together with the calls that produced them, and an
 * assistant item with nothing left (no text, no other calls). The latest user turn is never
 * touched: the model may be about to act on a failure it has just seen, and taking it away
 * would make it repeat the same call blind.
 */
export function dropFailedToolResults(): CompactionStrategy {
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
      if (failedCallIds.size === 0) return skippedResult(transcript, tokens, 'no-failed-results');

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
          if (isEmptyAssistant(trimmed)) {
            itemsRemoved += 1;
          } else {
            output.push(deriveItem(item, trimmed));
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
