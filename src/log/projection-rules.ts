import { StoreError } from '../errors/index.js';
import type { Item } from '../transcript/types.js';
import type { SessionEvent, TranscriptReplacedEvent } from './events.js';

/**
 * Events are projected strictly in log order, starting at seq 1 with no gaps: a missing
 * `items-appended` event would silently drop items from what the model sees.
 */
export function assertNextSeq({
  event,
  lastSeq,
}: {
  readonly event: SessionEvent;
  readonly lastSeq: number;
}): void {
  if (event.seq === lastSeq + 1) return;
  throw new StoreError(
    `Session events must be projected in order without gaps: expected seq ${lastSeq + 1}, got ${String(event.seq)} (${String(event.type)})`,
    { code: 'event_out_of_order' },
  );
}

/**
 * A marker covers every event up to its `throughSeq`, which must lie before the marker itself and
 * not before the previous marker: the previous view is then part of what the new one replaces,
 * and nothing a marker already folded away can come back.
 */
export function assertReplacementBounds({
  event,
  previousReplacementSeq,
}: {
  readonly event: TranscriptReplacedEvent;
  readonly previousReplacementSeq: number;
}): void {
  const { throughSeq } = event;
  if (
    Number.isSafeInteger(throughSeq) &&
    throughSeq >= previousReplacementSeq &&
    throughSeq < event.seq
  ) {
    return;
  }
  throw new StoreError(
    `transcript-replaced at seq ${event.seq} has throughSeq ${String(throughSeq)}; it must be an integer from ${previousReplacementSeq} (the previous marker) to ${event.seq - 1}`,
    { code: 'invalid_replacement' },
  );
}

/**
 * The items of a replacement view. A `{ref}` names an item of `covered`, the effective history
 * the marker replaces (everything at or before its `throughSeq`); an `{item}` is held inline.
 * A ref to anything else makes the log unreadable, so it fails instead of being skipped.
 */
export function resolveReplacementView({
  event,
  covered,
}: {
  readonly event: TranscriptReplacedEvent;
  readonly covered: readonly Item[];
}): Item[] {
  const coveredById = new Map<string, Item>();
  for (const item of covered) coveredById.set(item.id, item);
  const resolved: Item[] = [];
  for (const [index, entry] of event.view.entries()) {
    if ('ref' in entry && typeof entry.ref === 'string') {
      const item = coveredById.get(entry.ref);
      if (item === undefined) {
        throw new StoreError(
          `transcript-replaced at seq ${event.seq}: view entry ${index} references item ${JSON.stringify(entry.ref)}, which is not in the history it replaces (through seq ${event.throughSeq})`,
          { code: 'unresolved_reference' },
        );
      }
      resolved.push(item);
    } else if ('item' in entry && typeof entry.item === 'object' && entry.item !== null) {
      resolved.push(entry.item);
    } else {
      throw new StoreError(
        `transcript-replaced at seq ${event.seq}: view entry ${index} has neither a ref nor an item`,
        { code: 'invalid_replacement' },
      );
    }
  }
  return resolved;
}
