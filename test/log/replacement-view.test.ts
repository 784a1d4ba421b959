import fc from 'fast-check';
import { ConfigError, type Item } from 'loopkeeper';
import { buildReplacementView, createProjection } from 'loopkeeper/log';
import { describe, expect, it } from 'vitest';
import { result, user } from '../support/items.js';
import { itemsAppended, replacement, stamped } from '../support/session-events.js';

describe('buildReplacementView', () => {
  it('refs kept items, holds new ones inline, and marks a pruned result as replacing its original', () => {
    const previous = [user('u1'), result('r1', 'c1', { content: 'long output' }), user('u2')];
    const summary: Item = { kind: 'context', id: 's1', name: 'summary', text: 'so far' };
    const pruned = result('r1-pruned', 'c1', { content: '[pruned 11 characters]' });
    const next = [summary, pruned, user('u2')];
    expect(buildReplacementView({ previous, next })).toEqual([
      { item: summary },
      { item: pruned, replaces: 'r1' },
      { ref: 'u2' },
    ]);
  });

  it('refs an item that is equal but not the same object (as after a round trip through a store)', () => {
    const previous = [user('u1')];
    const copy = structuredClone(previous[0] as Item);
    expect(buildReplacementView({ previous, next: [copy] })).toEqual([{ ref: 'u1' }]);
  });

  it('refuses an item that kept its id but changed content', () => {
    const previous = [user('u1', 'original')];
    const error = (() => {
      try {
        buildReplacementView({ previous, next: [user('u1', 'edited')] });
      } catch (caught) {
        return caught;
      }
    })();
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'item_id_reused' });
  });

  it('property: a marker with the built view projects exactly to the new transcript', () => {
    const items = fc.uniqueArray(fc.integer({ min: 1, max: 60 }), { maxLength: 20 });
    fc.assert(
      fc.property(items, fc.array(fc.boolean()), fc.boolean(), (ids, keep, addSummary) => {
        const previous = ids.map((id) => user(`u${id}`));
        const events = stamped([itemsAppended(previous)]);
        const kept = previous.filter((_, index) => keep[index] ?? true);
        const next: Item[] = addSummary
          ? [{ kind: 'context', id: 'summary', text: 'earlier' }, ...kept]
          : kept;
        const view = buildReplacementView({ previous, next });
        const projection = createProjection({ events });
        projection.applyAll(stamped([replacement({ throughSeq: 1, view })], 1));
        expect(projection.items).toEqual(next);
      }),
      { numRuns: 100 },
    );
  });
});
