import { formatCount, formatDuration, formatPercent } from '../output/format.js';
import { renderTable } from '../output/table.js';
import type { DemoResult } from './run-demo.js';

/** The summary table the demo ends with. */
export function renderDemoSummary(result: DemoResult, { logKept = true } = {}): string {
  const { stats } = result;
  const saved = stats.tokensSeen - stats.tokensSent;
  const rows: string[][] = [
    ['steps (model requests)', `${formatCount(stats.steps)} in ${formatCount(stats.runs)} runs`],
    ['tokens seen (without compaction)', formatCount(stats.tokensSeen)],
    [
      'tokens sent (reported prompt tokens)',
      `${formatCount(stats.tokensSent)} (${formatPercent(stats.tokensSent, stats.tokensSeen)} of seen, ${formatCount(saved)} saved)`,
    ],
    ['compactions: structural', formatCount(stats.compactionsByTier.structural)],
    ['compactions: summary', formatCount(stats.compactionsByTier.summary)],
    ['compactions: emergency prune', formatCount(stats.compactionsByTier.emergency)],
    ['compactions: mutators (tool-output cap)', formatCount(stats.compactionsByTier.mutator)],
    ['compactions: provider', formatCount(stats.compactionsByTier.provider)],
    ['compactions: total', formatCount(stats.compactions)],
    [
      'largest effective history',
      `${formatCount(stats.largestEffectiveTokens)} tokens, ${stats.largestEffectiveItems} items (window ${formatCount(result.window)})`,
    ],
    ['largest prompt sent', `${formatCount(stats.largestPromptTokens)} tokens`],
    ['full history', `${formatCount(stats.fullHistoryTokens)} tokens, ${stats.items} items`],
    [
      'effective history at the end',
      `${formatCount(stats.effectiveTokens)} tokens, ${stats.effectiveItems} items`,
    ],
    ['wall time', formatDuration(result.wallTimeMs)],
    ['session log', logKept ? result.logPath : `${result.logPath} (removed at the end)`],
  ];
  return renderTable({ columns: [{ header: 'metric' }, { header: 'value' }], rows });
}

/** The summary as `--json` prints it: the run's facts and every statistic of the log. */
export function demoSummaryJson(result: DemoResult) {
  return {
    sessionId: result.sessionId,
    logPath: result.logPath,
    window: result.window,
    maxTokens: result.maxTokens,
    targetTokens: result.targetTokens,
    recordings: result.recordings,
    turns: result.turns,
    wallTimeMs: Math.round(result.wallTimeMs),
    ...result.stats,
  };
}
