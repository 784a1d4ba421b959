import type { Item } from '../../src/index.js';
import { workFactsOf } from '../../src/testing/index.js';
import { flatten, outputLinesOf, type StepRetention, visibleText } from './retention.js';

/**
 * `stepRetention`'s measure, made cheap enough for a long session's hundreds of requests
 * of up to 100k tokens: every fact and output line is interned once, every distinct item text
 * is searched once for every one of them (and the answer kept), and a request shows what one of
 * its items, or the instructions, shows. The one difference from searching the whole request's
 * text: a fact that only appears across the boundary of two items is not counted. Facts are
 * the same `workFactsOf` facts, checked by their first 160 flattened characters, and output
 * lines the same `outputLinesOf` lines, checked whole.
 */
export class VisibilityIndex {
  readonly #ids = new Map<string, number>();
  readonly #needles: string[] = [];
  readonly #hits = new Map<string, { checked: number; hits: Set<number> }>();
  readonly #textOf = new WeakMap<Item, string>();

  /** The id of a fact as `isVisible` checks it (its first 160 characters), or of a whole line. */
  idOf(fact: string, whole = false): number {
    const flat = flatten(fact);
    const needle = whole ? flat : flat.slice(0, 160);
    let id = this.#ids.get(needle);
    if (id === undefined) {
      id = this.#needles.length;
      this.#needles.push(needle);
      this.#ids.set(needle, id);
    }
    return id;
  }

  #hitsOf(text: string): ReadonlySet<number> {
    let entry = this.#hits.get(text);
    if (entry === undefined) {
      entry = { checked: 0, hits: new Set() };
      this.#hits.set(text, entry);
    }
    for (; entry.checked < this.#needles.length; entry.checked += 1) {
      if (text.includes(this.#needles[entry.checked] as string)) entry.hits.add(entry.checked);
    }
    return entry.hits;
  }

  #text(item: Item): string {
    let text = this.#textOf.get(item);
    if (text === undefined) {
      text = visibleText(undefined, [item]);
      this.#textOf.set(item, text);
    }
    return text;
  }

  /**
   * What a request shows, by id: `all`, every fact or line some item of it, or the
   * instructions, shows; `free`, what the items that are no tool output and the instructions
   * show; `own`, for each tool output in it, what that output (or its changed copy) shows.
   */
  visible(instructions: string | undefined, request: readonly Item[]): RequestView {
    const own = new Map<string, ReadonlySet<number>>();
    // The long session repeats its recordings, so many items of a request share a text.
    const freeTexts = new Set([flatten(instructions ?? '')]);
    const outputTexts = new Set<string>();
    for (const item of request) {
      const text = this.#text(item);
      if (item.kind === 'toolResult') {
        outputTexts.add(text);
        own.set(item.callId, this.#hitsOf(text));
      } else freeTexts.add(text);
    }
    const free = new Set<number>();
    for (const text of freeTexts) for (const id of this.#hitsOf(text)) free.add(id);
    const all = new Set(free);
    for (const text of outputTexts) for (const id of this.#hitsOf(text)) all.add(id);
    return { all, free, own };
  }
}

/** What one request shows, as fact and line ids (see {@link VisibilityIndex.visible}). */
export interface RequestView {
  readonly all: ReadonlySet<number>;
  readonly free: ReadonlySet<number>;
  readonly own: ReadonlyMap<string, ReadonlySet<number>>;
}

/** Every fact and output line of an unmanaged session, as ids, in the order they were logged. */
export interface LoggedWork {
  readonly paths: readonly number[];
  readonly errorLines: readonly number[];
  readonly identifiers: readonly number[];
  /** Each earlier output's lines, output by output (`outputLinesOf`). */
  readonly outputLines: readonly { readonly callId: string; readonly id: number }[];
}

/** The work logged before one request: the goal's id, and how many of each list it had reached. */
export interface EarlierWork {
  readonly goal: number | undefined;
  readonly paths: number;
  readonly errorLines: number;
  readonly identifiers: number;
  readonly outputLines: number;
}

/**
 * For each request after the first of an unmanaged session (whose requests only grow at the
 * end), the work logged before it: request i's earlier work is everything in request i - 1.
 * Facts are gathered item by item, which gives the same sets as `workFactsOf` over the whole
 * request, and each item is read once.
 */
export function earlierWorkOf(
  requests: readonly (readonly Item[])[],
  index: VisibilityIndex,
): { logged: LoggedWork; steps: EarlierWork[] } {
  const lists = {
    paths: new Set<number>(),
    errorLines: new Set<number>(),
    identifiers: new Set<number>(),
  };
  const outputLines: { callId: string; id: number }[] = [];
  let goal: number | undefined;
  let read = 0;
  const steps: EarlierWork[] = [];
  for (let position = 1; position < requests.length; position += 1) {
    const earlier = requests[position - 1] ?? [];
    const before = requests[position - 2] ?? [];
    if (before.some((item, at) => earlier[at]?.id !== item.id)) {
      throw new Error('bench: an unmanaged request is not an extension of the one before it');
    }
    for (const item of earlier.slice(read)) {
      const facts = workFactsOf([item]);
      for (const path of facts.paths) lists.paths.add(index.idOf(path));
      for (const line of facts.errorLines) lists.errorLines.add(index.idOf(line));
      for (const identifier of facts.identifiers) lists.identifiers.add(index.idOf(identifier));
      for (const { callId, lines } of outputLinesOf([item])) {
        for (const line of lines) outputLines.push({ callId, id: index.idOf(line, true) });
      }
      if (goal === undefined && item.kind === 'user') {
        goal = index.idOf(visibleText(undefined, [item]));
      }
    }
    read = earlier.length;
    steps.push({
      goal,
      paths: lists.paths.size,
      errorLines: lists.errorLines.size,
      identifiers: lists.identifiers.size,
      outputLines: outputLines.length,
    });
  }
  return {
    logged: {
      paths: [...lists.paths],
      errorLines: [...lists.errorLines],
      identifiers: [...lists.identifiers],
      outputLines,
    },
    steps,
  };
}

/** What one request shows of the earlier work, as `stepRetention` measures it. */
export function indexedStepRetention(
  logged: LoggedWork,
  earlier: EarlierWork,
  view: RequestView,
): StepRetention {
  const share = (ids: readonly number[], count: number) => {
    if (count === 0) return undefined;
    let visible = 0;
    for (let at = 0; at < count; at += 1) if (view.all.has(ids[at] as number)) visible += 1;
    return visible / count;
  };
  let lines = 0;
  for (let at = 0; at < earlier.outputLines; at += 1) {
    const { callId, id } = logged.outputLines[at] as { callId: string; id: number };
    if (view.free.has(id) || view.own.get(callId)?.has(id) === true) lines += 1;
  }
  return {
    goal: earlier.goal === undefined || view.all.has(earlier.goal) ? 1 : 0,
    paths: share(logged.paths, earlier.paths),
    errorLines: share(logged.errorLines, earlier.errorLines),
    identifiers: share(logged.identifiers, earlier.identifiers),
    outputLines: earlier.outputLines === 0 ? undefined : lines / earlier.outputLines,
  };
}
