import fc from 'fast-check';
import { type Item, ProtocolError, validateTranscript } from 'loopkeeper';
import { assertValidTranscript, type ProtocolProblem } from 'loopkeeper/transcript';
import { describe, expect, it } from 'vitest';
import { brokenTranscriptArbitrary, validTranscriptArbitrary } from '../support/arbitraries.js';
import { answer, calls, result, user } from '../support/items.js';

const kinds = (problems: readonly ProtocolProblem[]) =>
  problems.map(({ index, id, kind }) => ({ index, id, kind }));

describe('validateTranscript', () => {
  it('accepts parallel calls answered in any order in the block after their assistant item', () => {
    const items = [
      { kind: 'context', id: 'c', text: 'summary' } satisfies Item,
      user('u1'),
      calls('a1', 'x', 'y'),
      result('r1', 'y'),
      result('r2', 'x'),
      answer('a2'),
    ];
    expect(validateTranscript(items)).toEqual([]);
  });

  it('accepts an empty transcript and one without tool calls', () => {
    expect(validateTranscript([])).toEqual([]);
    expect(validateTranscript([user('u'), answer('a')])).toEqual([]);
  });

  it('reports an unanswered call at its assistant item, naming the call', () => {
    const problems = validateTranscript([user('u'), calls('a', 'x', 'y'), result('r', 'x')]);
    expect(kinds(problems)).toEqual([{ index: 1, id: 'a', kind: 'unanswered_call' }]);
    expect(problems[0]?.message).toContain("'y'");
  });

  it('reports a result whose call nobody made as an orphan', () => {
    const problems = validateTranscript([user('u'), result('r', 'ghost')]);
    expect(kinds(problems)).toEqual([{ index: 1, id: 'r', kind: 'orphan_result' }]);
  });

  it('reports a result before its call as out of order, not also as unanswered', () => {
    const problems = validateTranscript([user('u'), result('r', 'x'), calls('a', 'x')]);
    expect(kinds(problems)).toEqual([{ index: 1, id: 'r', kind: 'result_out_of_order' }]);
    expect(problems[0]?.message).toContain('before its call');
  });

  it('refuses a context item between a call and its results (providers reject it)', () => {
    const items = [
      user('u'),
      calls('a', 'x'),
      { kind: 'context', id: 'c', text: 'note' } satisfies Item,
      result('r', 'x'),
    ];
    expect(kinds(validateTranscript(items))).toEqual([
      { index: 3, id: 'r', kind: 'result_out_of_order' },
    ]);
  });

  it('refuses results after the next user or assistant item', () => {
    expect(kinds(validateTranscript([calls('a', 'x'), user('u'), result('r', 'x')]))).toEqual([
      { index: 2, id: 'r', kind: 'result_out_of_order' },
    ]);
    expect(kinds(validateTranscript([calls('a', 'x'), answer('b'), result('r', 'x')]))).toEqual([
      { index: 2, id: 'r', kind: 'result_out_of_order' },
    ]);
  });

  it('reports a second result for one call as a duplicate', () => {
    const problems = validateTranscript([calls('a', 'x'), result('r1', 'x'), result('r2', 'x')]);
    expect(kinds(problems)).toEqual([{ index: 2, id: 'r2', kind: 'duplicate_result' }]);
  });

  it('reports duplicate item ids and duplicate call ids, within and across items', () => {
    expect(kinds(validateTranscript([user('same'), answer('same')]))).toEqual([
      { index: 1, id: 'same', kind: 'duplicate_item_id' },
    ]);
    const within = validateTranscript([calls('a', 'x', 'x'), result('r1', 'x'), result('r2', 'x')]);
    expect(kinds(within)).toEqual([{ index: 0, id: 'a', kind: 'duplicate_call_id' }]);
    const across = validateTranscript([
      calls('a1', 'x'),
      result('r1', 'x'),
      calls('a2', 'x'),
      result('r2', 'x'),
    ]);
    expect(kinds(across)).toEqual([{ index: 2, id: 'a2', kind: 'duplicate_call_id' }]);
  });

  it("reports a result whose toolName is not its call's name", () => {
    const problems = validateTranscript([
      calls('a', 'x'),
      result('r', 'x', { toolName: 'read_file' }),
    ]);
    expect(kinds(problems)).toEqual([{ index: 1, id: 'r', kind: 'tool_name_mismatch' }]);
    expect(problems[0]?.message).toContain("'bash'");
  });

  it('reports structurally broken values as invalid items, one problem per fault', () => {
    const problems = validateTranscript([
      'hello',
      null,
      { kind: 'robot', id: 'k' },
      { kind: 'user', content: 'no id' },
      { kind: 'user', id: '', content: 'empty id' },
      { kind: 'user', id: 'u', content: 42 },
      {
        kind: 'assistant',
        id: 'a',
        toolCalls: [{ id: 'x', name: 'bash', arguments: { path: '/' } }],
      },
      { kind: 'assistant', id: 'b', toolCalls: [] },
      { kind: 'toolResult', id: 't', callId: 'x', toolName: 'bash', content: 'ok', isError: 'no' },
      { kind: 'context', id: 'c', text: ['a'] },
    ]);
    expect(problems.every((problem) => problem.kind === 'invalid_item')).toBe(true);
    expect(problems.map((problem) => problem.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const messages = problems.map((problem) => problem.message);
    expect(messages[0]).toBe("item must be an object (got string 'hello')");
    expect(messages[2]).toBe(
      "kind must be 'user', 'assistant', 'toolResult' or 'context' (got string 'robot')",
    );
    expect(messages[3]).toBe('id must be a string (got nothing)');
    expect(messages[4]).toBe("id must not be empty (got string '')");
    expect(messages[5]).toContain('content must be a string or an array of text and image parts');
    expect(messages[6]).toBe('toolCalls[0].arguments must be a string (got an object)');
    expect(messages[7]).toContain('toolCalls must be left out');
    expect(messages[8]).toBe("isError must be true or false (got string 'no')");
    expect(problems[6]?.id).toBe('a');
  });

  it('ignores invalid items for the protocol rules, so one bad item is one problem', () => {
    const problems = validateTranscript([
      calls('a', 'x'),
      { kind: 'nope', id: 'n' },
      result('r', 'x'),
    ]);
    expect(kinds(problems)).toEqual([{ index: 1, id: 'n', kind: 'invalid_item' }]);
  });

  it('says so when the transcript is not an array', () => {
    expect(validateTranscript({} as unknown as unknown[])[0]?.message).toContain('not an array');
  });

  it('holds: every generated valid transcript validates clean', () => {
    fc.assert(
      fc.property(validTranscriptArbitrary(), (items) => {
        expect(validateTranscript(items)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('holds: every single protocol-breaking mutation is reported where it happened', () => {
    fc.assert(
      fc.property(brokenTranscriptArbitrary, ({ items, expected }) => {
        expect(kinds(validateTranscript(items))).toContainEqual(expected);
      }),
      { numRuns: 400 },
    );
  });
});

describe('assertValidTranscript', () => {
  it('returns a valid transcript unchanged', () => {
    const items = [user('u'), calls('a', 'x'), result('r', 'x')];
    expect(assertValidTranscript(items)).toBe(items);
  });

  it('throws a ProtocolError whose message names index, id and problem for each break', () => {
    const items: unknown[] = [user('u'), user('u'), 7, result('r', 'ghost')];
    let caught: unknown;
    try {
      assertValidTranscript(items);
    } catch (error) {
      caught = error;
    }
    expect(ProtocolError.isInstance(caught)).toBe(true);
    const error = caught as ProtocolError;
    expect(error.code).toBe('protocol_invalid');
    expect(error.problems.map((problem) => problem.kind)).toEqual([
      'duplicate_item_id',
      'invalid_item',
      'orphan_result',
    ]);
    expect(error.message).toContain('3 problems');
    expect(error.message).toContain('item 1 (u): duplicate_item_id');
    expect(error.message).toContain('item 2: invalid_item: item must be an object (got number 7)');
    expect(error.message).toContain("item 3 (r): orphan_result: tool result answers call 'ghost'");
  });
});
