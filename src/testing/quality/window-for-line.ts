import { CONTEXT_WINDOW_DEFAULTS } from '../../compaction/triggers/context-window-trigger.js';

/**
 * The smallest window whose default `contextWindowTrigger` line (no output reserve) is exactly
 * `line`, so a harness measures at the line it names whatever the default percent is.
 */
export function windowForLine(line: number): number {
  return Math.ceil((line * 100) / CONTEXT_WINDOW_DEFAULTS.percent);
}
