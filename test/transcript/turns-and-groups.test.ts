import fc from 'fast-check';
import { validateTranscript } from 'loopkeeper';
import { atomicGroups, type ItemRange, userTurns } from 'loopkeeper/transcript';
import { describe, expect, it } from 'vitest';
import { validTranscriptArbitrary } from '../support/arbitraries.js';
import { answer, calls, context, result, user } from '../support/items.js';

/** Ranges that tile `[0, length)` in order, with nothing left out or counted twice. */
function tiles(ranges: readonly ItemRange[], length: number): boolean {
  let expected = 0;
  for (const range of ranges) {
    if (range.start !== expected || range.end <= range.start) return false;
    expected = range.end;
  }
  return expected === length;
}

describe('userTurns', () => {
  it('splits at user items and exposes what comes before the first as leading', () => {
    const items = [
      context('s'),
      user('u1'),
      calls('a1', 'x'),
      result('r1', 'x'),
      answer('a2'),
      user('u2'),
      answer('a3'),
    ];
    expect(userTurns(items)).toEqual({
      leading: { start: 0, end: 1 },
      turns: [
        { start: 1, end: 5 },
        { start: 5, end: 7 },
      ],
    });
  });

  it('has an empty leading range when the transcript opens with a user item', () => {
    expect(userTurns([user('u'), answer('a')])).toEqual({
      leading: { start: 0, end: 0 },
      turns: [{ start: 0, end: 2 }],
    });
  });

  it('puts everything in leading when there is no user item', () => {
    expect(userTurns([context('s'), answer('a')])).toEqual({
      leading: { start: 0, end: 2 },
      turns: [],
    });
    expect(userTurns([])).toEqual({ leading: { start: 0, end: 0 }, turns: [] });
  });

  it('holds: leading and turns cover every item once, and each turn starts with a user item', () => {
    fc.assert(
      fc.property(validTranscriptArbitrary({ largeContent: false }), (items) => {
        const { leading, turns } = userTurns(items);
        const nonEmpty = leading.end > leading.start ? [leading, ...turns] : [...turns];
        expect(tiles(nonEmpty, items.length)).toBe(true);
        for (const turn of turns) expect(items[turn.start]?.kind).toBe('user');
        for (let index = leading.start; index < leading.end; index += 1) {
          expect(items[index]?.kind).not.toBe('user');
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('atomicGroups', () => {
  it('keeps an assistant item with all its parallel results as one unit', () => {
    const items = [
      user('u'),
      calls('a1', 'x', 'y'),
      result('r1', 'y'),
      result('r2', 'x'),
      answer('a2'),
    ];
    expect(atomicGroups(items)).toEqual([
      { start: 0, end: 1 },
      { start: 1, end: 4 },
      { start: 4, end: 5 },
    ]);
  });

  it('keeps a stray result with the unit before it rather than losing it', () => {
    expect(atomicGroups([user('u'), result('r', 'ghost')])).toEqual([{ start: 0, end: 2 }]);
    expect(atomicGroups([result('r', 'ghost'), user('u')])).toEqual([
      { start: 0, end: 1 },
      { start: 1, end: 2 },
    ]);
    expect(atomicGroups([])).toEqual([]);
  });

  it('holds: dropping any set of whole units leaves a valid transcript', () => {
    fc.assert(
      fc.property(
        validTranscriptArbitrary({ largeContent: false }),
        fc.array(fc.boolean(), { maxLength: 60 }),
        (items, keep) => {
          const groups = atomicGroups(items);
          expect(tiles(groups, items.length)).toBe(true);
          const kept = groups
            .filter((_, position) => keep[position] ?? true)
            .flatMap((group) => items.slice(group.start, group.end));
          expect(validateTranscript(kept)).toEqual([]);
        },
      ),
      { numRuns: 200 },
    );
  });
});
