import {
  type CompactionStrategy,
  contextWindowTrigger,
  createCompactor,
  dropReasoning,
  extractiveSummarizer,
  type Item,
  pipeline,
  pruneToolResults,
} from 'loopkeeper';
import { createItemId } from 'loopkeeper/transcript';

export interface CollapseRepeatedOutputsOptions {
  /** Outputs smaller than this are left alone: collapsing them saves too little. */
  readonly minTokens?: number;
}

/**
 * Replaces a tool output that a later call of the same tool returned again, word for word,
 * with a one-line note. The result keeps its call id and tool name, so every call is still
 * answered and the transcript stays protocol-valid.
 */
export function collapseRepeatedOutputs({
  minTokens = 50,
}: CollapseRepeatedOutputsOptions = {}): CompactionStrategy {
  return {
    name: 'collapseRepeatedOutputs',
    async apply({ transcript }, { tokens }) {
      const seenLater = new Set<string>();
      const output: Item[] = [];
      let collapsed = 0;
      // Walk from the end so the newest copy of an output is the one that stays.
      for (const item of [...transcript].reverse()) {
        if (item.kind !== 'toolResult') {
          output.push(item);
          continue;
        }
        const key = `${item.toolName}\u0000${item.content}`;
        if (seenLater.has(key) && tokens.countText(item.content) >= minTokens) {
          // A changed item gets a new id: ids name immutable content.
          output.push({
            ...item,
            id: createItemId('collapsed'),
            content: `[Same output as a later ${item.toolName} call; see there.]`,
          });
          collapsed += 1;
        } else {
          output.push(item);
        }
        seenLater.add(key);
      }
      if (collapsed === 0) {
        // Returning the input array itself tells pipelines that nothing changed.
        return { transcript, metadata: { skipped: 'nothing-repeated' } };
      }
      return { transcript: output.reverse(), metadata: { collapsed } };
    },
  };
}

// The custom strategy runs first, in place of the default structural tier.
export const compactor = createCompactor({
  trigger: contextWindowTrigger({ window: 128_000 }),
  strategy: pipeline(collapseRepeatedOutputs(), dropReasoning(), pruneToolResults()),
  backend: extractiveSummarizer(),
});
