import fc from 'fast-check';
import {
  effectiveHistory,
  type Item,
  MemorySessionStore,
  type SessionEvent,
  StoreError,
} from 'loopkeeper';
import {
  createProjection,
  loadProjection,
  SessionProjection,
  type TranscriptReplacedEvent,
  type ViewEntry,
} from 'loopkeeper/log';
import { describe, expect, it } from 'vitest';
import { user } from '../support/items.js';
import { collect, itemsAppended, replacement, stamped } from '../support/session-events.js';

/**
 * The definition of DESIGN.md §3 taken literally, recomputed from scratch: the latest marker's
 * view, its refs resolved against the effective history of the events up to its throughSeq,
 * then every item appended after that throughSeq.
 */
function naiveHistory(events: readonly SessionEvent[]): Item[] {
  const markers = events.filter(
    (event): event is TranscriptReplacedEvent => event.type === 'transcript-replaced',
  );
  const appendedItems = (after: number) =>
    events.flatMap((event) =>
      event.type === 'items-appended' && event.seq > after ? event.items : [],
    );
  const marker = markers.at(-1);
  if (marker === undefined) return appendedItems(0);
  const covered = naiveHistory(events.filter((event) => event.seq <= marker.throughSeq));
  const view = marker.view.map((entry) => {
    if (!('ref' in entry)) return entry.item;
    const item = covered.find((candidate) => candidate.id === entry.ref);
    if (item === undefined) throw new Error(`test generated an unresolvable ref ${entry.ref}`);
    return item;
  });
  return [...view, ...appendedItems(marker.throughSeq)];
}

type Step =
  | { readonly kind: 'append'; readonly count: number; readonly toolResult: boolean }
  | { readonly kind: 'usage'; readonly promptTokens: number }
  | {
      readonly kind: 'replace';
      readonly back: number;
      readonly keep: readonly boolean[];
      readonly summary: boolean;
      readonly prune: boolean;
      readonly reverse: boolean;
    };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      count: fc.integer({ min: 0, max: 3 }),
      toolResult: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('usage' as const), promptTokens: fc.nat(10_000) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('replace' as const),
      back: fc.integer({ min: 0, max: 3 }),
      keep: fc.array(fc.boolean(), { maxLength: 12 }),
      summary: fc.boolean(),
      prune: fc.boolean(),
      reverse: fc.boolean(),
    }),
  },
);

/**
 * Turns generated steps into a valid log. Markers pick a throughSeq between the previous marker
 * and now, and reference only items of the history they cover (found with `naiveHistory`), keep
 * a generated subset, and may add a summary inline or a pruned copy that replaces an original.
 */
function buildLog(steps: readonly Step[]): SessionEvent[] {
  const events: SessionEvent[] = [];
  let nextId = 0;
  let previousMarkerSeq = 0;
  const push = (event: Parameters<typeof stamped>[0][number]) => {
    const [stampedEvent] = stamped([event], events.length);
    if (stampedEvent !== undefined) events.push(stampedEvent);
  };
  for (const step of steps) {
    if (step.kind === 'append') {
      const items: Item[] = Array.from({ length: step.count }, () => {
        nextId += 1;
        return step.toolResult
          ? {
              kind: 'toolResult',
              id: `item-${nextId}`,
              callId: `call-${nextId}`,
              toolName: 'read',
              content: `output ${nextId}`,
              isError: false,
            }
          : user(`item-${nextId}`);
      });
      push(itemsAppended(items));
    } else if (step.kind === 'usage') {
      push({
        type: 'usage-reported',
        model: 'test',
        promptTokens: step.promptTokens,
        completionTokens: 1,
      });
    } else {
      const lastSeq = events.length;
      const throughSeq = lastSeq - Math.min(step.back, lastSeq - previousMarkerSeq);
      const covered = naiveHistory(events.filter((event) => event.seq <= throughSeq));
      let view: ViewEntry[] = covered.flatMap((item, index): ViewEntry[] => {
        if (!(step.keep[index % Math.max(step.keep.length, 1)] ?? true)) return [];
        if (step.prune && item.kind === 'toolResult') {
          nextId += 1;
          return [
            { item: { ...item, id: `item-${nextId}`, content: '[pruned]' }, replaces: item.id },
          ];
        }
        return [{ ref: item.id }];
      });
      if (step.reverse) view = view.reverse();
      if (step.summary) {
        nextId += 1;
        view.unshift({
          item: { kind: 'context', id: `item-${nextId}`, name: 'summary', text: 'so far' },
        });
      }
      push(replacement({ throughSeq, view }));
      previousMarkerSeq = lastSeq + 1;
    }
  }
  return events;
}

const logArbitrary = fc.array(stepArbitrary, { maxLength: 40 }).map(buildLog);

describe('SessionProjection', () => {
  it('property: after every event the incremental projection equals effectiveHistory and a naive recomputation from scratch', () => {
    fc.assert(
      fc.property(logArbitrary, (events) => {
        const projection = createProjection();
        for (const [index, event] of events.entries()) {
          projection.apply(event);
          const prefix = events.slice(0, index + 1);
          const naive = naiveHistory(prefix);
          expect(projection.items).toEqual(naive);
          expect(effectiveHistory(prefix)).toEqual(naive);
          expect(projection.lastSeq).toBe(event.seq);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('property: between replacements the items array only grows at its end, and `replacements` counts markers', () => {
    fc.assert(
      fc.property(logArbitrary, (events) => {
        const projection = createProjection();
        for (const event of events) {
          const before = projection.items;
          const beforeItems = [...before];
          const replacementsBefore = projection.replacements;
          projection.apply(event);
          if (event.type === 'transcript-replaced') {
            expect(projection.replacements).toBe(replacementsBefore + 1);
            expect(projection.items).not.toBe(before);
            expect(projection.latestReplacement).toBe(event);
          } else {
            expect(projection.replacements).toBe(replacementsBefore);
            expect(projection.items).toBe(before);
            expect(projection.items.slice(0, beforeItems.length)).toEqual(beforeItems);
          }
        }
        const markers = events.filter((event) => event.type === 'transcript-replaced');
        expect(projection.replacements).toBe(markers.length);
      }),
      { numRuns: 100 },
    );
  });

  it('keeps items appended between throughSeq and the marker after the view', () => {
    const events = stamped([
      itemsAppended([user('a'), user('b')]),
      itemsAppended([user('c')]),
      replacement({ throughSeq: 1, view: [{ ref: 'b' }] }),
      itemsAppended([user('d')]),
    ]);
    const projection = createProjection({ events });
    expect(projection.items.map((item) => item.id)).toEqual(['b', 'c', 'd']);
    expect(effectiveHistory(events).map((item) => item.id)).toEqual(['b', 'c', 'd']);
  });

  it('resolves a ref to a summary that an earlier marker held inline', () => {
    const summary: Item = { kind: 'context', id: 's1', name: 'summary', text: 'earlier' };
    const events = stamped([
      itemsAppended([user('a')]),
      replacement({ throughSeq: 1, view: [{ item: summary }] }),
      itemsAppended([user('b')]),
      replacement({ throughSeq: 3, view: [{ ref: 's1' }, { ref: 'b' }] }),
    ]);
    expect(createProjection({ events }).items).toEqual([summary, user('b')]);
  });

  it('refuses a ref to an item the marker does not cover, and stays unchanged', () => {
    const projection = createProjection({
      events: stamped([itemsAppended([user('a')]), itemsAppended([user('b')])]),
    });
    const [marker] = stamped([replacement({ throughSeq: 1, view: [{ ref: 'b' }] })], 2);
    expect(() => projection.apply(marker as SessionEvent)).toThrow(
      expect.objectContaining({ code: 'unresolved_reference' }),
    );
    expect(projection.items.map((item) => item.id)).toEqual(['a', 'b']);
    expect(projection.lastSeq).toBe(2);
    expect(projection.replacements).toBe(0);
  });

  it('refuses a marker whose throughSeq goes back before the previous marker', () => {
    const events = stamped([
      itemsAppended([user('a')]),
      replacement({ throughSeq: 1, view: [{ ref: 'a' }] }),
      itemsAppended([user('b')]),
      replacement({ throughSeq: 1, view: [{ ref: 'a' }] }),
    ]);
    const error = captureError(() => createProjection({ events }));
    expect(StoreError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'invalid_replacement' });
    expect(() => effectiveHistory(events)).toThrow(/throughSeq 1/);
  });

  it('refuses events out of order or with a gap', () => {
    const events = stamped([itemsAppended([user('a')]), itemsAppended([user('b')])]);
    const projection = new SessionProjection();
    expect(() => projection.apply(events[1] as SessionEvent)).toThrow(
      expect.objectContaining({ code: 'event_out_of_order' }),
    );
    projection.applyAll(events);
    expect(() => projection.apply(events[1] as SessionEvent)).toThrow(/expected seq 3, got 2/);
    expect(() => effectiveHistory([...events].reverse())).toThrow(StoreError);
  });

  it('reports usage with the item count it covered until a replacement makes it stale', () => {
    const projection = createProjection({
      events: stamped([
        itemsAppended([user('a'), user('b')]),
        { type: 'usage-reported', model: 'm', promptTokens: 120, completionTokens: 7 },
        itemsAppended([user('c')]),
      ]),
    });
    expect(projection.reportedUsage).toEqual({ promptTokens: 120, itemCount: 2 });
    expect(projection.latestUsage?.completionTokens).toBe(7);
    projection.apply(
      stamped([replacement({ throughSeq: 3, view: [{ ref: 'c' }] })], 3)[0] as SessionEvent,
    );
    expect(projection.reportedUsage).toBeUndefined();
    expect(projection.latestUsage?.promptTokens).toBe(120);
  });
});

describe('effectiveHistory', () => {
  it('is every appended item in order when there is no marker', () => {
    const events = stamped([
      itemsAppended([user('a')]),
      { type: 'run-started', runId: 'r1' },
      itemsAppended([user('b'), user('c')]),
      { type: 'run-finished', runId: 'r1', outcome: 'completed', steps: 1 },
    ]);
    expect(effectiveHistory(events).map((item) => item.id)).toEqual(['a', 'b', 'c']);
    expect(effectiveHistory([])).toEqual([]);
  });
});

describe('loadProjection', () => {
  it('rebuilds from a store and then reads only the events after lastSeq', async () => {
    const store = new MemorySessionStore();
    await store.append('s', [itemsAppended([user('a'), user('b')])]);
    await store.append('s', [replacement({ throughSeq: 1, view: [{ ref: 'b' }] })]);
    const projection = await loadProjection({ store, sessionId: 's' });
    expect(projection.items.map((item) => item.id)).toEqual(['b']);
    await store.append('s', [itemsAppended([user('c')])]);
    await loadProjection({ store, sessionId: 's', projection });
    expect(projection.items.map((item) => item.id)).toEqual(['b', 'c']);
    expect(projection.items).toEqual(effectiveHistory(await collect(store.read('s'))));
    expect(projection.lastSeq).toBe(3);
  });
});

function captureError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
