import { createCompactor } from '../../compaction/compactor.js';
import type { Compactor } from '../../compaction/compactor-types.js';
import { contextWindowTrigger } from '../../compaction/triggers/context-window-trigger.js';
import type { CompactionBackend, CompactionTrigger } from '../../compaction/types.js';
import type { TelemetryEvent } from '../../events/telemetry-events.js';
import type { TokenCounter } from '../../tokens/types.js';
import type { Item } from '../../transcript/types.js';
import { type ReplayFigures, replayFigures } from './replay-figures.js';
import { QUALITY_INSTRUCTIONS, replayRecording } from './replay-recording.js';
import { observeFloors } from './request-floor.js';
import { windowForLine } from './window-for-line.js';

export type {
  FactRecall,
  LowestRecall,
  LowestRequestRecall,
  ReplayFigures,
  SeenRequest,
} from './replay-figures.js';
export { QUALITY_INSTRUCTIONS } from './replay-recording.js';

export interface CompactionQualityOptions {
  /** Names the transcript in the report. */
  readonly name: string;
  /** A recorded conversation as OpenAI chat messages; its system prompt is not replayed. */
  readonly messages: readonly unknown[];
  /** The trigger line in tokens. */
  readonly line: number;
  readonly tokens: TokenCounter;
  /** The summary backend under test; without one the compactor never summarizes. */
  readonly backend?: CompactionBackend;
  /**
   * Builds the compactor from the trigger; default `createCompactor({trigger, backend})`. The
   * harness observes its `compact` (each step's transcript and budget) and changes nothing.
   */
  readonly compactor?: (trigger: CompactionTrigger) => Compactor;
  /** The replay's system prompt. */
  readonly instructions?: string;
  /** Sees every telemetry event of the replay's loop, to look into a result. */
  readonly onTelemetry?: (event: TelemetryEvent) => void;
}

export interface CompactionQualityReport extends ReplayFigures {
  readonly name: string;
  readonly line: number;
  /** Tokens of the whole recorded transcript, system prompt included. */
  readonly transcriptTokens: number;
  readonly turns: number;
  readonly turnsCompleted: number;
  /** Outcomes and error codes of turns that did not complete. */
  readonly failures: readonly string[];
  readonly requests: number;
  readonly compactions: number;
  readonly summaries: number;
  readonly emergencyPrunes: number;
  /**
   * Emergency prunes after a compaction step whose floor was above its headroom line, so no
   * compaction could have been effective there and the prune was forced. The floor is what every
   * tier keeps, counted as the budget counts (items only): the latest request as the
   * structural tier leaves it (cut to half the target when larger than the target), the newest
   * exchange (the last assistant item and its tool results after that request) and, when
   * anything else is in the transcript, the summary item before it holds any fact.
   */
  readonly forcedEmergencyPrunes: number;
}

/**
 * Replays one recorded transcript through the real loop (scripted model answering as
 * recorded, replay tools giving the recorded outputs, a memory store) with a compactor whose
 * trigger line is `line`, and measures what the work kept: compactions by tier, emergency
 * prunes, whether every turn completed, and which goal, paths, error lines and identifiers
 * of the items no longer in the final request the model can still see, and the lowest share of
 * them seen at any request after the first compaction. Every request is
 * checked for protocol validity. Beside them it measures what no compaction could change: the
 * emergency prunes that were forced (a step's floor, what every tier keeps, above its headroom
 * line) and the room the final request leaves for the dropped facts after its floor.
 *
 * @example
 * ```ts
 * import { measureCompactionQuality } from 'loopkeeper/testing';
 * import { createTokenCounter, extractiveSummarizer } from 'loopkeeper';
 *
 * const report = await measureCompactionQuality({
 *   name: 'tiny session',
 *   messages: [{ role: 'user', content: 'Rename src/app.ts to src/main.ts' }],
 *   line: 2_000,
 *   tokens: await createTokenCounter(),
 *   backend: extractiveSummarizer(),
 * });
 * console.log(report.compactions, report.failures);
 * ```
 */
export async function measureCompactionQuality({
  name,
  messages,
  line,
  tokens,
  backend,
  compactor: buildCompactor,
  instructions = QUALITY_INSTRUCTIONS,
  onTelemetry,
}: CompactionQualityOptions): Promise<CompactionQualityReport> {
  // The line is exact: no reserve, and the window the default percent puts the line at.
  const trigger = contextWindowTrigger({ window: windowForLine(line), outputReserve: 0 });
  // Only observed: the compactor under test does the work, its floor is measured beside it.
  const floors = observeFloors(
    buildCompactor?.(trigger) ??
      createCompactor(backend === undefined ? { trigger } : { trigger, backend }),
  );
  let forcedEmergencyPrunes = 0;
  let compactions = 0;
  let summaries = 0;
  let emergencyPrunes = 0;
  const { recorded, requests, turns, loop } = await replayRecording({
    messages,
    tokens,
    compactor: floors.compactor,
    instructions,
    onTelemetry: (event) => {
      if (event.type === 'CompactionFinished') {
        compactions += 1;
        if (event.tier === 'summary') summaries += 1;
      }
      if (event.type === 'EmergencyPruneApplied') {
        emergencyPrunes += 1;
        // The prune follows the compaction step the observer saw last.
        if (floors.latestStep()?.forced === true) forcedEmergencyPrunes += 1;
      }
      onTelemetry?.(event);
    },
  });
  const failures = turns
    .filter((finished) => finished.outcome !== 'completed')
    .map(
      (finished) =>
        `${finished.outcome}${finished.error ? `: ${finished.error.code}: ${finished.error.message}` : ''}`,
    );
  const turnsCompleted = turns.length - failures.length;

  const last = requests.at(-1);
  const logged: Item[] = [];
  for await (const event of loop.session.store.read(loop.session.sessionId)) {
    if (event.type === 'items-appended') logged.push(...event.items);
  }
  const overheadTokens =
    last === undefined
      ? 0
      : tokens.countText(last.instructions ?? '') +
        (last.tools.length === 0 ? 0 : tokens.countText(JSON.stringify(last.tools)));
  return {
    name,
    line,
    transcriptTokens: tokens.count(recorded),
    turns: turns.length,
    turnsCompleted,
    failures,
    requests: requests.length,
    compactions,
    summaries,
    emergencyPrunes,
    forcedEmergencyPrunes,
    ...replayFigures({
      requests,
      logged,
      goal: recorded.find((item) => item.kind === 'user'),
      line,
      overheadTokens,
      tokens,
      lastStep: floors.latestStep(),
    }),
  };
}
