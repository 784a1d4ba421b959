import type { Item } from '../transcript/types.js';
import type { ItemsAppendedEvent, SessionEvent } from './events.js';
import {
  assertNextSeq,
  assertReplacementBounds,
  resolveReplacementView,
} from './projection-rules.js';

/**
 * What the model sees after `events` (a whole session log from seq 1): the latest replacement
 * view with its refs resolved, then every item appended after that marker's `throughSeq`; with
 * no marker, every appended item in order. Pure and O(log); `SessionProjection` keeps the same
 * result up to date incrementally.
 *
 * @example
 * ```ts
 * import { effectiveHistory, MemorySessionStore } from 'loopkeeper';
 *
 * const store = new MemorySessionStore();
 * await store.append(
 *   's1',
 *   [{ type: 'items-appended', items: [{ kind: 'user', id: 'u1', content: 'Hi' }] }],
 *   { expectedSeq: 0 },
 * );
 * const events = [];
 * for await (const event of store.read('s1')) events.push(event);
 * console.log(effectiveHistory(events)); // what the model would see
 * ```
 */
export function effectiveHistory(events: Iterable<SessionEvent>): Item[] {
  let view: readonly Item[] = [];
  let replacementSeq = 0;
  // items-appended events later than the latest marker's throughSeq, in order.
  let appendedAfterView: ItemsAppendedEvent[] = [];
  let lastSeq = 0;
  for (const event of events) {
    assertNextSeq({ event, lastSeq });
    lastSeq = event.seq;
    if (event.type === 'items-appended') {
      appendedAfterView.push(event);
    } else if (event.type === 'transcript-replaced') {
      assertReplacementBounds({ event, previousReplacementSeq: replacementSeq });
      const { throughSeq } = event;
      const covered = [
        ...view,
        ...appendedAfterView.filter((appended) => appended.seq <= throughSeq).flatMap(itemsOf),
      ];
      view = resolveReplacementView({ event, covered });
      appendedAfterView = appendedAfterView.filter((appended) => appended.seq > throughSeq);
      replacementSeq = event.seq;
    }
  }
  return [...view, ...appendedAfterView.flatMap(itemsOf)];
}

function itemsOf(event: ItemsAppendedEvent): readonly Item[] {
  return event.items;
}
