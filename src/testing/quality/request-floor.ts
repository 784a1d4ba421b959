import { headroomLine } from '../../compaction/compactor-steps.js';
import type { CompactInput, CompactOutcome, Compactor } from '../../compaction/compactor-types.js';
import { clipOversizedRequest } from '../../compaction/strategies/clip-oversized-request.js';
import { createSummaryItem } from '../../compaction/summary.js';
import type { CompactionBudget } from '../../compaction/types.js';
import type { TokenCounter } from '../../tokens/types.js';
import { atomicGroups } from '../../transcript/atomic-groups.js';
import type { Item } from '../../transcript/types.js';
import { factLines, factTokens, isVisible, visibleText, type WorkFacts } from './work-facts.js';

/**
 * The parts of a transcript every compaction tier keeps: the latest user request, the newest
 * exchange (the last assistant item and its tool results, when they come after that request)
 * and, when anything else is in the transcript, a summary item standing in for it.
 */
export interface FloorParts {
  readonly request: Item | undefined;
  readonly exchange: readonly Item[];
  /** Whether the transcript holds anything besides the request and the newest exchange. */
  readonly hasOlder: boolean;
}

/** The latest request, the newest exchange after it (one atomic group) and whether there is more. */
export function floorParts(transcript: readonly Item[]): FloorParts {
  let requestIndex = transcript.length - 1;
  while (requestIndex >= 0 && transcript[requestIndex]?.kind !== 'user') requestIndex -= 1;
  let assistantIndex = transcript.length - 1;
  while (assistantIndex > requestIndex && transcript[assistantIndex]?.kind !== 'assistant') {
    assistantIndex -= 1;
  }
  const group =
    assistantIndex > requestIndex
      ? atomicGroups(transcript).find(
          (range) => range.start <= assistantIndex && assistantIndex < range.end,
        )
      : undefined;
  const exchange = group === undefined ? [] : transcript.slice(group.start, group.end);
  const request = requestIndex >= 0 ? transcript[requestIndex] : undefined;
  const kept = exchange.length + (request === undefined ? 0 : 1);
  return { request, exchange, hasOlder: transcript.length > kept };
}

/**
 * The floor's items, in the order a request would hold them: an empty summary (only when
 * something else is in the transcript), the request, the newest exchange.
 */
export function floorItems(parts: FloorParts): Item[] {
  return [
    ...(parts.hasOlder ? [createSummaryItem('')] : []),
    ...(parts.request === undefined ? [] : [parts.request]),
    ...parts.exchange,
  ];
}

/**
 * Tokens, counted as the budget counts a transcript (items only, no instructions or tool
 * schemas), of what every tier of a compaction to `budget` keeps of `transcript`: the latest
 * request as the structural tier leaves it (`clipOversizedRequest`: cut to half the target when
 * it alone is larger than the target), the newest exchange verbatim (only the emergency prune
 * may prune its outputs), and, when anything else is in the transcript, a summary item before
 * it holds any fact. A compaction step whose floor is above its headroom line cannot be
 * effective, whatever it writes: the emergency prune after it is forced.
 */
export async function compactionFloorTokens({
  transcript,
  budget,
  tokens,
  originalOf,
}: {
  readonly transcript: readonly Item[];
  readonly budget: CompactionBudget;
  readonly tokens: TokenCounter;
  readonly originalOf?: ((item: Item) => Item | undefined) | undefined;
}): Promise<number> {
  const parts = floorParts(transcript);
  let { request } = parts;
  if (request !== undefined) {
    const clipped = await clipOversizedRequest().apply(
      { transcript: [request], reason: 'threshold', budget },
      {
        tokens,
        signal: new AbortController().signal,
        ...(originalOf === undefined ? {} : { originalOf }),
      },
    );
    request = clipped.transcript[0];
  }
  return tokens.count(floorItems({ ...parts, request }));
}

/** One compaction step as the floor observer saw it. */
export interface FloorStep {
  /** What every tier keeps of the step's input (`compactionFloorTokens`). */
  readonly floorTokens: number;
  /** The step's headroom line (`headroomLine` of the outcome's budget). */
  readonly headroomTokens: number;
  /** The floor is above the headroom line: no compaction could be effective at this step. */
  readonly forced: boolean;
  /** The latest request of the step's input (what the floor keeps of it before any cut). */
  readonly request: Item | undefined;
  readonly outcome: CompactOutcome;
}

/** A compactor whose compaction steps are observed, and the latest step it saw. */
export interface FloorObserver {
  readonly compactor: Compactor;
  /** The latest compaction step; undefined before the first, while one runs, and after one that threw. */
  latestStep(): FloorStep | undefined;
}

/**
 * `compactor` with its `compact` observed: after each compaction step (the tiers before any
 * emergency prune) the step's floor (`compactionFloorTokens` of the step's input, to the
 * outcome's budget) and headroom line are kept as the latest step. Everything else goes to
 * `compactor` unchanged, and every result is the compactor's own.
 */
export function observeFloors(compactor: Compactor): FloorObserver {
  let latest: FloorStep | undefined;
  const observed: Compactor = {
    name: compactor.name,
    points: compactor.points,
    trigger: compactor.trigger,
    ...(compactor.backend === undefined ? {} : { backend: compactor.backend }),
    ...(compactor.toolOutputLimit === undefined
      ? {}
      : { toolOutputLimit: compactor.toolOutputLimit }),
    evaluate: (input) => compactor.evaluate(input),
    mutate: (input) => compactor.mutate(input),
    emergencyPrune: (input) => compactor.emergencyPrune(input),
    async compact(input: CompactInput) {
      latest = undefined;
      const outcome = await compactor.compact(input);
      const floorTokens = await compactionFloorTokens({
        transcript: input.transcript,
        budget: outcome.budget,
        tokens: input.tokens,
        originalOf: input.originalOf,
      });
      const headroomTokens = headroomLine(outcome.budget);
      latest = {
        floorTokens,
        headroomTokens,
        forced: floorTokens > headroomTokens,
        request: floorParts(input.transcript).request,
        outcome,
      };
      return outcome;
    },
  };
  return { compactor: observed, latestStep: () => latest };
}

/** The room the final request leaves for the dropped facts, and what it is made of. */
export interface RoomAfterFloor {
  readonly droppedFactTokens: number;
  readonly floorTokens: number;
  readonly goalTokens: number;
  readonly roomAfterFloorTokens: number;
  /**
   * The room the last compaction step had for the dropped facts if it was to be effective: its
   * headroom line less its floor, less the goal's line when its latest request does not show the
   * goal. Undefined when nothing compacted.
   */
  readonly roomUnderHeadroomTokens: number | undefined;
}

/**
 * The room the final request leaves for the dropped facts once what every request holds is
 * paid: the line, less the instructions and tool schemas (`overheadTokens`), less the floor
 * (the latest request and the newest exchange as sent and, when anything was dropped, an empty
 * summary item), less the goal's line when the latest request does not show the goal (what it
 * adds to the fact lines: a fact it shows is written once).
 */
export function roomAfterFloor({
  finalItems,
  dropped,
  facts,
  goalText,
  line,
  overheadTokens,
  tokens,
  lastStep,
}: {
  readonly finalItems: readonly Item[];
  readonly dropped: readonly Item[];
  readonly facts: WorkFacts;
  /** The first user request's visible text (`visibleText`), '' when there is none. */
  readonly goalText: string;
  readonly line: number;
  readonly overheadTokens: number;
  readonly tokens: TokenCounter;
  /** The last compaction step (`FloorObserver.latestStep`), when there was one. */
  readonly lastStep?: FloorStep | undefined;
}): RoomAfterFloor {
  const droppedFactTokens = factTokens(facts, tokens);
  const parts = floorParts(finalItems);
  const floorTokens = tokens.count(floorItems({ ...parts, hasOlder: dropped.length > 0 }));
  // What the goal's line adds when `request` does not show the goal.
  const goalCost = (request: Item | undefined) =>
    goalText === '' ||
    (request !== undefined && isVisible(goalText, visibleText(undefined, [request])))
      ? 0
      : goalAndFactTokens(goalText, factLines(facts), tokens) - droppedFactTokens;
  const goalTokens = goalCost(parts.request);
  return {
    droppedFactTokens,
    floorTokens,
    goalTokens,
    roomAfterFloorTokens: line - overheadTokens - floorTokens - goalTokens,
    roomUnderHeadroomTokens:
      lastStep === undefined
        ? undefined
        : lastStep.headroomTokens - lastStep.floorTokens - goalCost(lastStep.request),
  };
}

/**
 * Tokens of the goal's line followed by the fact lines it does not already show, one per line:
 * the least text that shows the goal and every fact, so a fact inside the goal is paid once.
 */
function goalAndFactTokens(goalText: string, lines: readonly string[], tokens: TokenCounter) {
  const goalLine = goalText.slice(0, 160);
  return tokens.countText(
    [goalLine, ...lines.filter((line) => !isVisible(line, goalLine))].join('\n'),
  );
}
