import { isSummaryItem } from '../../compaction/summary.js';
import type { TokenCounter } from '../../tokens/types.js';
import type { Item } from '../../transcript/types.js';
import { validateTranscript } from '../../transcript/validate-transcript.js';
import { type FloorStep, roomAfterFloor } from './request-floor.js';
import { isVisible, visibleText, type WorkFacts, workFactsOf } from './work-facts.js';

/** How many facts of the dropped part there were, and how many the model can still see. */
export interface FactRecall {
  readonly dropped: number;
  readonly visible: number;
  /** Dropped facts the model can no longer see (the first 20). */
  readonly lost: readonly string[];
}

/** The request where one kind of fact had its lowest share still visible. */
export interface LowestRecall {
  /** The request's index among every request of the replay (0 is the first). */
  readonly request: number;
  /** Facts of that kind in the dropped part at that request. */
  readonly dropped: number;
  /** How many of them that request showed. */
  readonly visible: number;
}

/**
 * Per kind of fact, the request after the first compaction whose dropped part had the lowest
 * share of that kind still visible; undefined for a kind no such request dropped any of.
 */
export interface LowestRequestRecall {
  readonly paths: LowestRecall | undefined;
  readonly errorLines: LowestRecall | undefined;
  readonly identifiers: LowestRecall | undefined;
}

function recall(dropped: readonly string[], visible: string): FactRecall {
  const lost = dropped.filter((fact) => !isVisible(fact, visible));
  return {
    dropped: dropped.length,
    visible: dropped.length - lost.length,
    lost: lost.slice(0, 20),
  };
}

function factsOnlyIn(dropped: WorkFacts, kept: WorkFacts): WorkFacts {
  const without = (facts: readonly string[], known: readonly string[]) => {
    const set = new Set(known);
    return facts.filter((fact) => !set.has(fact));
  };
  return {
    paths: without(dropped.paths, kept.paths),
    errorLines: without(dropped.errorLines, kept.errorLines),
    identifiers: without(dropped.identifiers, kept.identifiers),
  };
}

/** Whether `a` is a lower share than `b` (exact: cross-multiplied). */
function lower(a: LowestRecall, b: LowestRecall | undefined): boolean {
  return b === undefined || a.visible * b.dropped < b.visible * a.dropped;
}

/**
 * Per kind of fact, the lowest share of the dropped part still visible at any request after the
 * first compaction (a request that does not extend the previous one). At each, the dropped part
 * is the items logged before the request was made that it does not hold (by id), its facts those
 * the request's own items do not hold, checked against everything the request shows.
 */
function lowestRequestRecall(
  requests: readonly {
    readonly instructions: string | undefined;
    readonly items: readonly Item[];
    readonly logged: readonly Item[];
  }[],
): LowestRequestRecall {
  // Facts per item, each item's read once: the dropped part grows with every request.
  const cache = new Map<Item, WorkFacts>();
  const factsOf = (items: readonly Item[]): WorkFacts => {
    const paths = new Set<string>();
    const errorLines = new Set<string>();
    const identifiers = new Set<string>();
    for (const item of items) {
      let facts = cache.get(item);
      if (facts === undefined) {
        facts = workFactsOf([item]);
        cache.set(item, facts);
      }
      for (const fact of facts.paths) paths.add(fact);
      for (const fact of facts.errorLines) errorLines.add(fact);
      for (const fact of facts.identifiers) identifiers.add(fact);
    }
    return { paths: [...paths], errorLines: [...errorLines], identifiers: [...identifiers] };
  };
  const lowest: { -readonly [K in keyof LowestRequestRecall]: LowestRequestRecall[K] } = {
    paths: undefined,
    errorLines: undefined,
    identifiers: undefined,
  };
  let compactedYet = false;
  let previous: readonly Item[] = [];
  requests.forEach((request, index) => {
    const { items } = request;
    if (!previous.every((item, at) => items[at] === item)) compactedYet = true;
    previous = items;
    if (!compactedYet) return;
    const ids = new Set(items.map((item) => item.id));
    const dropped = request.logged.filter((item) => !ids.has(item.id));
    if (dropped.length === 0) return;
    const facts = factsOnlyIn(factsOf(dropped), factsOf(items));
    const visible = visibleText(request.instructions, items);
    for (const kind of ['paths', 'errorLines', 'identifiers'] as const) {
      const kindFacts = facts[kind];
      if (kindFacts.length === 0) continue;
      const seen: LowestRecall = {
        request: index,
        dropped: kindFacts.length,
        visible: kindFacts.filter((fact) => isVisible(fact, visible)).length,
      };
      if (lower(seen, lowest[kind])) lowest[kind] = seen;
    }
  });
  return lowest;
}

/** A request as the replay drivers saw it: what the model read, and what was logged by then. */
export interface SeenRequest {
  readonly instructions: string | undefined;
  readonly items: readonly Item[];
  /** Every item the session had logged when the request was made. */
  readonly logged: readonly Item[];
}

/** The report's figures that come from the requests and the log alone, whatever loop ran. */
export interface ReplayFigures {
  /** Largest request the model received, in our token count. */
  readonly maxRequestTokens: number;
  /** 1 − (tokens of the last request ÷ tokens of everything the session logged). */
  readonly reduction: number;
  /** The first user request was visible in every request after the first compaction. */
  readonly goalKept: boolean;
  readonly paths: FactRecall;
  readonly errorLines: FactRecall;
  readonly identifiers: FactRecall;
  /**
   * The same recall taken at every request after the first compaction rather than only the
   * final one: at each, the dropped part is what the session had logged when the request was
   * made and the request does not hold (matched by id, as for the final request; an output the
   * tool-output cap replaced by a clipped copy is dropped, its clip note shows what it keeps),
   * and its facts are checked against that request. Per kind, the request with the lowest share.
   * A fact lost at some step and back by the end counts here and not in `paths`, `errorLines`
   * or `identifiers`. Undefined when the driver does not measure it.
   */
  readonly lowestAtRequest: LowestRequestRecall | undefined;
  /** Requests that were not protocol-valid (should always be 0). */
  readonly invalidRequests: number;
  /**
   * Tokens of the last request's instructions and tool schemas: what every request carries
   * before any item, so `line - overheadTokens` is the room items have under the line.
   */
  readonly overheadTokens: number;
  /**
   * Tokens it takes to write every dropped fact once as the harness checks it (its first 160
   * characters, one per line, nothing else). When this is more than the room under the line, no
   * compaction can keep them all visible, whatever it writes.
   */
  readonly droppedFactTokens: number;
  /**
   * Tokens of the final request's floor (items only): its latest request and newest exchange
   * as sent, and, when anything was dropped, the summary item before it holds any fact.
   */
  readonly floorTokens: number;
  /**
   * Tokens the goal's line (its first 160 characters) adds to the dropped facts written one per
   * line, the facts it shows itself written once; 0 when the latest request shows the goal.
   */
  readonly goalTokens: number;
  /**
   * `line - overheadTokens - floorTokens - goalTokens`: the room the final request leaves for
   * the dropped facts. When `droppedFactTokens` is larger, no compaction can keep them all
   * visible beside what every request must hold.
   */
  readonly roomAfterFloorTokens: number;
  /**
   * The room the last compaction step had for the dropped facts if it was to be effective (land
   * at or under its headroom line): that line less the step's floor, less the goal's line when
   * the step's latest request does not show the goal. The dropped facts are visible afterwards
   * only through what that step kept, so when `droppedFactTokens` is larger, keeping them all
   * means landing above the headroom line, which hands the step to the emergency prune.
   * Undefined when nothing compacted.
   */
  readonly roomUnderHeadroomTokens: number | undefined;
  /** The compaction summary in the last request, to read what the model was left with. */
  readonly finalSummary: string | undefined;
}

/**
 * What a replay's requests and log show, for any driver (loopkeeper's loop, the AI SDK's): every
 * request checked for protocol validity and, after the first compaction, for the goal; the
 * facts of the items no longer in the final request (the dropped part) still visible in it,
 * the lowest share at any request, and the room the final request and the last compaction step
 * (`lastStep`) left for them.
 */
export function replayFigures({
  requests,
  logged,
  goal,
  line,
  overheadTokens,
  tokens,
  lastStep,
}: {
  readonly requests: readonly SeenRequest[];
  /** Everything the session logged, in order. */
  readonly logged: readonly Item[];
  /** The first user request of the recording. */
  readonly goal: Item | undefined;
  readonly line: number;
  /** Tokens of what every request carries besides its items (instructions, tool schemas). */
  readonly overheadTokens: number;
  readonly tokens: TokenCounter;
  readonly lastStep: FloorStep | undefined;
}): ReplayFigures {
  const goalText = goal === undefined ? '' : visibleText(undefined, [goal]);
  let goalKept = true;
  let compactedYet = false;
  let invalidRequests = 0;
  let maxRequestTokens = 0;
  let previous: readonly Item[] = [];
  for (const request of requests) {
    const { items } = request;
    if (validateTranscript(items).length > 0) invalidRequests += 1;
    maxRequestTokens = Math.max(maxRequestTokens, tokens.count(items));
    // A request that does not extend the previous one follows a compaction.
    if (!previous.every((item, index) => items[index] === item)) compactedYet = true;
    if (compactedYet && !isVisible(goalText, visibleText(request.instructions, items))) {
      goalKept = false;
    }
    previous = items;
  }
  const last = requests.at(-1);
  const finalItems = last?.items ?? [];
  const visible = visibleText(last?.instructions, finalItems);
  const finalIds = new Set(finalItems.map((item) => item.id));
  const dropped = logged.filter((item) => !finalIds.has(item.id));
  const facts = factsOnlyIn(workFactsOf(dropped), workFactsOf(finalItems));
  return {
    maxRequestTokens,
    reduction: logged.length === 0 ? 0 : 1 - tokens.count(finalItems) / tokens.count(logged),
    goalKept,
    paths: recall(facts.paths, visible),
    errorLines: recall(facts.errorLines, visible),
    identifiers: recall(facts.identifiers, visible),
    lowestAtRequest: lowestRequestRecall(requests),
    invalidRequests,
    overheadTokens,
    ...roomAfterFloor({
      finalItems,
      dropped,
      facts,
      goalText,
      line,
      overheadTokens,
      tokens,
      lastStep,
    }),
    finalSummary: finalItems.find(isSummaryItem)?.text,
  };
}
