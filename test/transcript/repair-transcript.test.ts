import fc from 'fast-check';
import { type Item, repairTranscript, validateTranscript } from 'loopkeeper';
import { UNANSWERED_CALL_CONTENT } from 'loopkeeper/transcript';
import { describe, expect, it } from 'vitest';
import { brokenTranscriptArbitrary, validTranscriptArbitrary } from '../support/arbitraries.js';
import { calls, result, user } from '../support/items.js';

/** Deterministic ids so expectations can name them. */
function counterIds() {
  let next = 0;
  return () => `new_${next++}`;
}

describe('repairTranscript', () => {
  it('returns a valid transcript unchanged with no repairs', () => {
    const items = [user('u'), calls('a', 'x', 'y'), result('r1', 'y'), result('r2', 'x')];
    const repaired = repairTranscript(items);
    expect(repaired.repairs).toEqual([]);
    expect(repaired.items).toEqual(items);
  });

  it('answers an unanswered call with a marked synthetic error result', () => {
    const repaired = repairTranscript([user('u'), calls('a', 'x', 'y'), result('r', 'x')], {
      createId: counterIds(),
    });
    expect(repaired.items[3]).toEqual({
      kind: 'toolResult',
      id: 'new_0',
      callId: 'y',
      toolName: 'bash',
      content: UNANSWERED_CALL_CONTENT,
      isError: true,
    });
    expect(UNANSWERED_CALL_CONTENT).toContain('loopkeeper synthesized this result');
    expect(UNANSWERED_CALL_CONTENT).toContain('never answered');
    expect(repaired.repairs).toEqual([
      expect.objectContaining({ kind: 'answered_unanswered_call', index: 1, id: 'a', callId: 'y' }),
    ]);
  });

  it('drops orphan and duplicate results and invalid items, reporting each', () => {
    const repaired = repairTranscript([
      user('u'),
      'not an item',
      calls('a', 'x'),
      result('r1', 'x'),
      result('r2', 'x'),
      result('r3', 'ghost'),
    ]);
    expect(repaired.items.map((item) => item.id)).toEqual(['u', 'a', 'r1']);
    expect(repaired.repairs.map(({ kind, index }) => ({ kind, index }))).toEqual([
      { kind: 'dropped_invalid_item', index: 1 },
      { kind: 'dropped_duplicate_result', index: 4 },
      { kind: 'dropped_orphan_result', index: 5 },
    ]);
    expect(repaired.repairs[0]?.message).toContain('item must be an object');
  });

  it('moves misplaced results into the block after their call, keeping their id', () => {
    const note: Item = { kind: 'context', id: 'c', text: 'note' };
    const repaired = repairTranscript([
      result('early', 'y'),
      user('u'),
      calls('a', 'x', 'y'),
      note,
      result('late', 'x'),
    ]);
    expect(repaired.items.map((item) => item.id)).toEqual(['u', 'a', 'early', 'late', 'c']);
    expect(repaired.repairs.map(({ kind, id }) => ({ kind, id }))).toEqual([
      { kind: 'moved_result', id: 'early' },
      { kind: 'moved_result', id: 'late' },
    ]);
  });

  it('prefers the result in place over an earlier stray copy of it', () => {
    const repaired = repairTranscript([result('stray', 'x'), calls('a', 'x'), result('r', 'x')]);
    expect(repaired.items.map((item) => item.id)).toEqual(['a', 'r']);
    expect(repaired.repairs).toEqual([
      expect.objectContaining({ kind: 'dropped_duplicate_result', id: 'stray' }),
    ]);
  });

  it('renames a duplicate item id and reports the new one', () => {
    const repaired = repairTranscript([user('same'), user('same')], { createId: counterIds() });
    expect(repaired.items.map((item) => item.id)).toEqual(['same', 'new_0']);
    expect(repaired.repairs).toEqual([
      expect.objectContaining({
        kind: 'renamed_duplicate_id',
        index: 1,
        id: 'same',
        newId: 'new_0',
      }),
    ]);
  });

  it('renames a reused call id together with the results in its own block', () => {
    const repaired = repairTranscript(
      [calls('a1', 'x'), result('r1', 'x'), calls('a2', 'x'), result('r2', 'x')],
      { createId: counterIds() },
    );
    expect(validateTranscript(repaired.items)).toEqual([]);
    const [first, firstResult, second, secondResult] = repaired.items;
    expect(first).toEqual(calls('a1', 'x'));
    expect(firstResult).toEqual(result('r1', 'x'));
    expect(second?.kind === 'assistant' && second.toolCalls?.[0]?.id).toBe('new_0');
    expect(secondResult?.kind === 'toolResult' && secondResult.callId).toBe('new_0');
    // Changed items get new ids: an id always names the same content.
    expect(second?.id).not.toBe('a2');
    expect(secondResult?.id).not.toBe('r2');
    expect(repaired.repairs.map(({ kind, index, callId }) => ({ kind, index, callId }))).toEqual([
      { kind: 'renamed_duplicate_call_id', index: 2, callId: 'x' },
      { kind: 'renamed_duplicate_call_id', index: 3, callId: 'x' },
    ]);
  });

  it("corrects a result's tool name under a new id", () => {
    const repaired = repairTranscript([calls('a', 'x'), result('r', 'x', { toolName: 'wrong' })], {
      createId: counterIds(),
    });
    expect(repaired.items[1]).toEqual({ ...result('r', 'x'), id: 'new_0' });
    expect(repaired.repairs).toEqual([
      expect.objectContaining({ kind: 'corrected_tool_name', id: 'r', newId: 'new_0' }),
    ]);
  });

  it('holds: the output always validates, whatever the input', () => {
    const junk = fc.array(
      fc.oneof(
        fc.anything(),
        fc.record({
          kind: fc.constantFrom('user', 'assistant', 'toolResult', 'context'),
          id: fc.constantFrom('i1', 'i2', 'i3'),
          content: fc.constantFrom('text', 3),
          text: fc.string({ maxLength: 5 }),
          callId: fc.constantFrom('c1', 'c2'),
          toolName: fc.constantFrom('bash', 'read'),
          isError: fc.boolean(),
          toolCalls: fc.array(
            fc.record({
              id: fc.constantFrom('c1', 'c2', 'c3'),
              name: fc.constantFrom('bash', 'read'),
              arguments: fc.constant('{}'),
            }),
            { minLength: 1, maxLength: 3 },
          ),
        }),
      ),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(junk, (items) => {
        expect(validateTranscript(repairTranscript(items).items)).toEqual([]);
      }),
      { numRuns: 400 },
    );
  });

  it('holds: a broken transcript is repaired into a valid one, with at least one repair', () => {
    fc.assert(
      fc.property(brokenTranscriptArbitrary, ({ items }) => {
        const repaired = repairTranscript(items);
        expect(validateTranscript(repaired.items)).toEqual([]);
        expect(repaired.repairs.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  it('holds: a valid transcript comes back identical with no repairs', () => {
    fc.assert(
      fc.property(validTranscriptArbitrary({ largeContent: false }), (items) => {
        const repaired = repairTranscript(items);
        expect(repaired.repairs).toEqual([]);
        expect(repaired.items).toEqual(items);
      }),
      { numRuns: 100 },
    );
  });

  it('holds: every item it keeps or changes is reported unless it is unchanged', () => {
    fc.assert(
      fc.property(brokenTranscriptArbitrary, ({ items }) => {
        const repaired = repairTranscript(items);
        const inputIds = new Set(items.map((item) => item.id));
        const reportedNew = new Set(
          repaired.repairs.flatMap((repair) => (repair.newId === undefined ? [] : [repair.newId])),
        );
        const synthesized = repaired.repairs.filter(
          (repair) => repair.kind === 'answered_unanswered_call',
        ).length;
        const unexplained = repaired.items.filter(
          (item) => !inputIds.has(item.id) && !reportedNew.has(item.id),
        );
        expect(unexplained.length).toBe(synthesized);
      }),
      { numRuns: 200 },
    );
  });
});
