import type { Item } from '../transcript/types.js';
import type { SessionEvent, TranscriptReplacedEvent, UsageReportedEvent } from './events.js';
import {
  assertNextSeq,
  assertReplacementBounds,
  resolveReplacementView,
} from './projection-rules.js';
import { replacedOriginals } from './replaced-originals.js';

/** Where one items-appended event's items start in the projected items. */
interface AppendedRun {
  readonly seq: number;
  readonly start: number;
}

/** Provider-reported prompt size, and how many leading items of the history it covered. */
export interface ReportedUsage {
  readonly promptTokens: number;
  readonly itemCount: number;
}

/** A history nothing has replaced yet: shared, since it is never written to. */
const NO_ORIGINALS: ReadonlyMap<string, Item> = new Map();

/**
 * The effective history of one session, kept up to date event by event. An `items-appended`
 * event costs O(its items); a `transcript-replaced` event costs O(effective history), which is
 * rare by design. Memory is proportional to the effective history: items a marker folded away
 * are dropped, because later refs may only name items of the history they replace.
 *
 * Equal to `effectiveHistory(events)` after every event; throws `StoreError` (and stays
 * unchanged) on an event out of order or a marker that cannot be resolved.
 *
 * @example
 * ```ts
 * import { MemorySessionStore, SessionProjection } from 'loopkeeper/log';
 *
 * const store = new MemorySessionStore();
 * const projection = new SessionProjection();
 * for await (const event of store.read('s1')) projection.apply(event);
 * console.log(projection.items, projection.reportedUsage);
 * ```
 */
export class SessionProjection {
  #items: Item[] = [];
  // Runs appended after the latest marker's throughSeq: a later marker needs their seqs to tell
  // which of them it covers.
  #runs: AppendedRun[] = [];
  #lastSeq = 0;
  #replacementSeq = 0;
  #replacements = 0;
  #latestReplacement: TranscriptReplacedEvent | undefined;
  #latestUsage: UsageReportedEvent | undefined;
  #usageItemCount: number | undefined;
  #originals: ReadonlyMap<string, Item> = NO_ORIGINALS;

  /**
   * The effective history. Between two replacements this same array only grows at its end; a
   * replacement installs a new array. So a consumer may cache by array identity and length, and
   * must copy it to keep a snapshot.
   */
  get items(): readonly Item[] {
    return this.#items;
  }

  /** Seq of the last event applied (0 before any). The next event must have `lastSeq + 1`. */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /**
   * How many `transcript-replaced` events were applied. It doubles as an epoch: while it stays
   * the same the history only grew at its end (a provider prompt-prefix cache stays valid).
   */
  get replacements(): number {
    return this.#replacements;
  }

  /**
   * The original of an item of the effective history that stands in for another (a pruned
   * tool result), or undefined for an item that is its own original.
   */
  originalOf(id: string): Item | undefined {
    return this.#originals.get(id);
  }

  get latestReplacement(): TranscriptReplacedEvent | undefined {
    return this.#latestReplacement;
  }

  /** The last `usage-reported` event, also when a replacement has made it stale. */
  get latestUsage(): UsageReportedEvent | undefined {
    return this.#latestUsage;
  }

  /**
   * The latest reported prompt size with the number of items the history held when it was
   * applied (log usage before the assistant's reply so that count matches the prompt);
   * undefined after a replacement, since the reported prompt no longer describes the history.
   */
  get reportedUsage(): ReportedUsage | undefined {
    if (this.#latestUsage === undefined || this.#usageItemCount === undefined) return undefined;
    return { promptTokens: this.#latestUsage.promptTokens, itemCount: this.#usageItemCount };
  }

  /**
   * A projection that stands just after seq `lastSeq`, the `throughSeq` of the session's latest
   * compaction marker, holding what applying that marker needs instead of the whole history:
   * `covered`, the items the marker's view names (by `ref` or `replaces`) as they were then, and
   * `originals`, what those items stand in for. Applying the events from `lastSeq + 1` on then
   * gives the same projection as applying every event from seq 1 (see `resumeProjection`).
   */
  static resumedBefore({
    lastSeq,
    covered,
    originals,
    replacementSeq,
    replacements,
    latestUsage,
  }: {
    readonly lastSeq: number;
    readonly covered: readonly Item[];
    readonly originals: ReadonlyMap<string, Item>;
    /** Seq of the marker before the latest one (0 when there is none). */
    readonly replacementSeq: number;
    /** How many markers came before the latest one. */
    readonly replacements: number;
    readonly latestUsage: UsageReportedEvent | undefined;
  }): SessionProjection {
    const projection = new SessionProjection();
    projection.#items = [...covered];
    projection.#lastSeq = lastSeq;
    projection.#originals = originals;
    projection.#replacementSeq = replacementSeq;
    projection.#replacements = replacements;
    projection.#latestUsage = latestUsage;
    return projection;
  }

  apply(event: SessionEvent): this {
    assertNextSeq({ event, lastSeq: this.#lastSeq });
    switch (event.type) {
      case 'items-appended':
        if (event.items.length > 0) {
          this.#runs.push({ seq: event.seq, start: this.#items.length });
          // A loop instead of push(...items): spreading a huge batch would overflow the stack.
          for (const item of event.items) this.#items.push(item);
        }
        break;
      case 'transcript-replaced':
        this.#replace(event);
        break;
      case 'usage-reported':
        this.#latestUsage = event;
        this.#usageItemCount = this.#items.length;
        break;
      default:
        break;
    }
    this.#lastSeq = event.seq;
    return this;
  }

  applyAll(events: Iterable<SessionEvent>): this {
    for (const event of events) this.apply(event);
    return this;
  }

  #replace(event: TranscriptReplacedEvent): void {
    assertReplacementBounds({ event, previousReplacementSeq: this.#replacementSeq });
    const firstKept = this.#runs.findIndex((run) => run.seq > event.throughSeq);
    const tailStart = firstKept === -1 ? this.#items.length : (this.#runs[firstKept]?.start ?? 0);
    // Resolve before touching any state, so a bad marker leaves the projection as it was.
    const covered = this.#items.slice(0, tailStart);
    const next = resolveReplacementView({ event, covered });
    this.#originals = replacedOriginals({ event, covered, previous: this.#originals });
    const shift = next.length - tailStart;
    for (let index = tailStart; index < this.#items.length; index += 1) {
      next.push(this.#items[index] as Item);
    }
    this.#runs =
      firstKept === -1
        ? []
        : this.#runs.slice(firstKept).map((run) => ({ seq: run.seq, start: run.start + shift }));
    this.#items = next;
    this.#replacementSeq = event.seq;
    this.#replacements += 1;
    this.#latestReplacement = event;
    this.#usageItemCount = undefined;
  }
}

/**
 * A projection, optionally caught up with `events` already read.
 *
 * @example
 * ```ts
 * import { createProjection, MemorySessionStore } from 'loopkeeper/log';
 *
 * const store = new MemorySessionStore();
 * await store.append(
 *   's1',
 *   [{ type: 'items-appended', items: [{ kind: 'user', id: 'u1', content: 'Hi' }] }],
 *   { expectedSeq: 0 },
 * );
 * const events = [];
 * for await (const event of store.read('s1')) events.push(event);
 * console.log(createProjection({ events }).items.length); // 1
 * ```
 */
export function createProjection({
  events = [],
}: {
  readonly events?: Iterable<SessionEvent>;
} = {}): SessionProjection {
  return new SessionProjection().applyAll(events);
}
