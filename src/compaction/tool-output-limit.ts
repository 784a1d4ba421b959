import type { Item } from '../transcript/types.js';
import { requireNonNegative } from './helpers/options.js';
import { isPrunedToolResult } from './helpers/tool-output-placeholder.js';
import { clipResult, isClipped } from './strategies/clip-tool-results.js';
import type { LoopMutator } from './types.js';

/**
 * The share of the context window `createCompactor` caps each new tool output at by default,
 * when its trigger knows the window (5.5%: 7,040 tokens on a 128k window).
 */
export const DEFAULT_TOOL_OUTPUT_SHARE = 0.055;

export interface ToolOutputLimitOptions {
  /**
   * The most tokens one tool output may take when the model first reads it; a larger one is
   * cut to its head and tail with a note of what was cut. A few percent of the context window
   * is a useful size (4,000 on a 128k window).
   */
  readonly maxTokens: number;
  /** The mutator's name in telemetry and in the log's markers. Default `'toolOutputLimit'`. */
  readonly name?: string;
}

/**
 * A mutator that caps each tool output before the model first reads it: right after the tools
 * ran (`AfterToolResult`), every new output larger than `maxTokens` is replaced in what the
 * model sees by a clipped copy, as `clipToolResults` clips (the head and the tail verbatim, a
 * note of how much was cut with the paths, error lines and identifiers in the cut part). The
 * log keeps every output whole, and the model can ask again for the part it needs.
 *
 * Without it, a large output is sent whole once and clipped or pruned at the next compaction,
 * which rewrites the request prefix the provider had cached. Capping at the source is cheaper
 * (on the bundled transcripts it cut the billed input by 10–20% at the same retention, see
 * docs/benchmarks.md, section 6) at the price of the model never reading a large output whole,
 * which is what agents that truncate tool output do. Only the step's new outputs are looked at,
 * so its cost follows the step, not the session.
 *
 * `createCompactor` runs one by default (its `toolOutputLimit` option, 5.5% of the window when
 * its trigger knows the window); this mutator is for a loop without a compactor, or a cap
 * that only some tools' outputs pass through. A loop refuses both at once under the same name.
 *
 * @example
 * ```ts
 * import { createAgentLoop } from 'loopkeeper';
 * import { toolOutputLimit } from 'loopkeeper/compaction';
 * import { ScriptedModel } from 'loopkeeper/testing';
 *
 * // No compactor: no tool output reaches the model above 4k tokens.
 * const loop = createAgentLoop({
 *   model: new ScriptedModel({ script: () => ({ text: 'Done.' }) }),
 *   mutators: [toolOutputLimit({ maxTokens: 4_000 })],
 * });
 * ```
 */
export function toolOutputLimit({
  maxTokens,
  name = 'toolOutputLimit',
}: ToolOutputLimitOptions): LoopMutator {
  requireNonNegative('toolOutputLimit', 'maxTokens', maxTokens, { positive: true });
  return {
    name,
    points: ['AfterToolResult'],
    async mutate({ transcript, tokens }) {
      // The step's new outputs are the tool results at the end of the transcript.
      let start = transcript.length;
      while (start > 0 && transcript[start - 1]?.kind === 'toolResult') start -= 1;
      let output: Item[] | undefined;
      let itemsClipped = 0;
      let tokensSaved = 0;
      for (let index = start; index < transcript.length; index += 1) {
        const item = transcript[index];
        if (item?.kind !== 'toolResult' || isPrunedToolResult(item) || isClipped(item)) continue;
        const clipped = clipResult(item, maxTokens, tokens);
        if (clipped === undefined) continue;
        output ??= [...transcript];
        output[index] = clipped;
        itemsClipped += 1;
        tokensSaved += tokens.countItem(item) - tokens.countItem(clipped);
      }
      if (output === undefined) return { dirty: false, metadata: { itemsClipped: 0 } };
      return { dirty: true, transcript: output, metadata: { itemsClipped, tokensSaved } };
    },
  };
}
