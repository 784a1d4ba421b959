import type { Item } from '../transcript/types.js';
import type { SessionEvent, TranscriptReplacedEvent, UsageReportedEvent } from './events.js';
import { SessionProjection } from './projection.js';
import type { IndexedSessionStore } from './store.js';

/** Where an item named by a marker's view was found: the item, and what it stands in for. */
interface Holding {
  readonly item: Item;
  readonly replaces: string | undefined;
}

/** What `resumeProjection` hands back: the projection, and where to read on from. */
export interface ResumePoint {
  /** Stands before the latest marker's covered range ends; apply events from `fromSeq` on. */
  readonly projection: SessionProjection;
  /** The latest marker's `throughSeq + 1`, or 1 for a session without a marker. */
  readonly fromSeq: number;
  /** The latest marker's seq, or 0 for a session without a marker. */
  readonly markerSeq: number;
}

/**
 * Starts the projection of a session from its latest compaction marker instead of from seq 1,
 * through a store's `IndexedSessionStore` ability: it reads the marker, the events holding the
 * items its view names (and, for a pruned placeholder, the original it stands in for), the
 * marker count and the latest usage before it. Applying the events from `fromSeq` on then gives
 * the projection a read from seq 1 would (items, originals, epoch, usage). Reading costs the
 * marker's view plus the events since its `throughSeq`, not the session.
 *
 * @example
 * ```ts
 * import { resumeProjection } from 'loopkeeper/log';
 * import { PostgresSessionStore } from 'loopkeeper/postgres';
 *
 * const store = new PostgresSessionStore({ connectionString: 'postgres://app@localhost/app' });
 * const { projection, fromSeq } = await resumeProjection({ store, sessionId: 'support-42' });
 * for await (const event of store.read('support-42', { fromSeq })) projection.apply(event);
 * console.log(projection.items.length, projection.lastSeq);
 * ```
 */
export async function resumeProjection({
  store,
  sessionId,
}: {
  readonly store: IndexedSessionStore;
  readonly sessionId: string;
}): Promise<ResumePoint> {
  const type = 'transcript-replaced';
  const marker = await store.readLatest(sessionId, { type });
  if (marker?.type !== type) {
    return { projection: new SessionProjection(), fromSeq: 1, markerSeq: 0 };
  }
  const [previous, replacements, usage, holdings] = await Promise.all([
    store.readLatest(sessionId, { type, beforeSeq: marker.seq }),
    store.countEvents(sessionId, { type, beforeSeq: marker.seq }),
    store.readLatest(sessionId, { type: 'usage-reported', beforeSeq: marker.throughSeq + 1 }),
    namedItems({ store, sessionId, marker }),
  ]);
  const named = namedIds(marker);
  const covered: Item[] = [];
  const originals = new Map<string, Item>();
  for (const id of named) {
    const holding = holdings.get(id);
    if (holding === undefined) continue;
    covered.push(holding.item);
    const original = originalOf({ id, holdings });
    if (original !== undefined) originals.set(id, original);
  }
  const projection = SessionProjection.resumedBefore({
    lastSeq: marker.throughSeq,
    covered,
    originals,
    replacementSeq: previous?.seq ?? 0,
    replacements,
    latestUsage: usage?.type === 'usage-reported' ? (usage as UsageReportedEvent) : undefined,
  });
  return { projection, fromSeq: marker.throughSeq + 1, markerSeq: marker.seq };
}

/** The ids a marker's view names: kept items (`ref`) and the originals placeholders replace. */
function namedIds(marker: TranscriptReplacedEvent): Set<string> {
  const ids = new Set<string>();
  for (const entry of marker.view) {
    if ('ref' in entry) ids.add(entry.ref);
    else if (entry.replaces !== undefined) ids.add(entry.replaces);
  }
  return ids;
}

/**
 * Finds the items `marker` names, as they stood at its `throughSeq`, and for each placeholder
 * among them the chain of items it replaced: one indexed query per link of the longest chain.
 */
async function namedItems({
  store,
  sessionId,
  marker,
}: {
  readonly store: IndexedSessionStore;
  readonly sessionId: string;
  readonly marker: TranscriptReplacedEvent;
}): Promise<Map<string, Holding>> {
  const holdings = new Map<string, Holding>();
  const asked = new Set<string>();
  let wanted = [...namedIds(marker)];
  while (wanted.length > 0) {
    for (const id of wanted) asked.add(id);
    const want = new Set(wanted);
    const events = await store.readHoldingItems(sessionId, {
      ids: wanted,
      throughSeq: marker.throughSeq,
    });
    // In seq order, so the latest holder of an id before the marker wins, as in the log.
    for (const event of events) collectHoldings({ event, want, holdings });
    wanted = [];
    for (const id of want) {
      const replaces = holdings.get(id)?.replaces;
      if (replaces !== undefined && !asked.has(replaces)) wanted.push(replaces);
    }
  }
  return holdings;
}

function collectHoldings({
  event,
  want,
  holdings,
}: {
  readonly event: SessionEvent;
  readonly want: ReadonlySet<string>;
  readonly holdings: Map<string, Holding>;
}): void {
  if (event.type === 'items-appended') {
    for (const item of event.items) {
      if (want.has(item.id)) holdings.set(item.id, { item, replaces: undefined });
    }
  } else if (event.type === 'transcript-replaced') {
    for (const entry of event.view) {
      if ('item' in entry && want.has(entry.item.id)) {
        holdings.set(entry.item.id, { item: entry.item, replaces: entry.replaces });
      }
    }
  }
}

/**
 * What a placeholder stands in for, collapsing chains to the first original as
 * `replacedOriginals` does: undefined for an item that is its own original.
 */
function originalOf({
  id,
  holdings,
}: {
  readonly id: string;
  readonly holdings: ReadonlyMap<string, Holding>;
}): Item | undefined {
  let original: Item | undefined;
  const seen = new Set<string>();
  let replaces = holdings.get(id)?.replaces;
  while (replaces !== undefined && !seen.has(replaces)) {
    seen.add(replaces);
    const holding = holdings.get(replaces);
    if (holding === undefined) break;
    original = holding.item;
    replaces = holding.replaces;
  }
  return original;
}
