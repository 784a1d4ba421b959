import { dropFailedToolResults } from '../../compaction/strategies/drop-failed-tool-results.js';
import { dropReasoning } from '../../compaction/strategies/drop-reasoning.js';
import { emergencyPrune } from '../../compaction/strategies/emergency-prune.js';
import { keepRecent } from '../../compaction/strategies/keep-recent.js';
import { pruneLargestToolResults } from '../../compaction/strategies/prune-largest-tool-results.js';
import { pruneToolResults } from '../../compaction/strategies/prune-tool-results.js';
import { summarizeOlder } from '../../compaction/strategies/summarize-older.js';
import type { CompactionStrategy } from '../../compaction/types.js';

/** What the command line decides about the strategies it builds. */
export interface StrategySettings {
  /** Tokens at the end kept verbatim by the strategies that protect a recent tail. */
  readonly protectTokens: number;
  readonly targetTokens: number;
}

interface CatalogEntry {
  readonly description: string;
  create(settings: StrategySettings): CompactionStrategy;
}

/** Every built-in strategy the `compact` command can run, by its public name. */
export const STRATEGY_CATALOG: Readonly<Record<string, CatalogEntry>> = {
  dropReasoning: {
    description: 'strip reasoning from assistant messages (not in the latest turn)',
    create: () => dropReasoning(),
  },
  dropFailedToolResults: {
    description: 'drop failed tool results together with their calls',
    create: () => dropFailedToolResults(),
  },
  pruneToolResults: {
    description: 'replace old tool output outside the protected tail with a placeholder',
    // A manual run wants every saving; the default minimum exists to spare a live prompt cache.
    create: ({ protectTokens }) =>
      pruneToolResults({ protectRecentTokens: protectTokens, minSavingsTokens: 0 }),
  },
  pruneLargestToolResults: {
    description: 'replace the largest tool outputs first until under the target',
    create: () => pruneLargestToolResults(),
  },
  keepRecent: {
    description: 'keep only the most recent messages that fit the target',
    create: ({ targetTokens }) => keepRecent({ tokens: targetTokens }),
  },
  summarizeOlder: {
    description: 'summarize everything before the protected tail (extractive, offline)',
    create: ({ protectTokens }) => summarizeOlder({ keepRecentTokens: protectTokens }),
  },
  emergencyPrune: {
    description: 'keep the newest whole user turns that fit, plus a leading summary',
    create: () => emergencyPrune(),
  },
};

/** Structural tiers first, then a summary: the same order the loop's compactor uses. */
export const DEFAULT_STRATEGIES: readonly string[] = [
  'dropReasoning',
  'pruneToolResults',
  'summarizeOlder',
];
