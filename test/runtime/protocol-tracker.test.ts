import { type Item, validateTranscript } from 'loopkeeper';
import { describe, expect, it } from 'vitest';
import { ProtocolTracker } from '../../src/runtime/protocol-tracker.js';
import { calls, result, user } from '../support/items.js';

function tracking(items: readonly Item[]): ProtocolTracker {
  const tracker = new ProtocolTracker();
  expect(tracker.reset(items)).toBeNull();
  return tracker;
}

describe('ProtocolTracker orphan check', () => {
  it('refuses a result when no call was ever made', () => {
    expect(new ProtocolTracker().check([result('r1', 'call_x')])).toMatchObject({
      index: 0,
      id: 'r1',
      kind: 'orphan_result',
    });
  });

  it('refuses a result for an unknown call while another call is open, and keeps that call open', () => {
    const tracker = tracking([user('u1'), calls('a1', 'call_1')]);
    expect(tracker.check([result('r1', 'call_other')], 2)).toMatchObject({
      index: 2,
      kind: 'orphan_result',
    });
    expect(tracker.pendingCalls.map((call) => call.id)).toEqual(['call_1']);
  });

  it('refuses a second result for an answered call, in the same batch or a later one', () => {
    const tracker = tracking([user('u1'), calls('a1', 'call_1')]);
    expect(tracker.check([result('r1', 'call_1'), result('r2', 'call_1')])).toMatchObject({
      id: 'r2',
      kind: 'duplicate_result',
    });
    tracker.observe([result('r1', 'call_1')]);
    expect(tracker.check([result('r2', 'call_1')])).toMatchObject({ kind: 'duplicate_result' });
  });

  it('refuses a late result for a call of an earlier turn after a user message', () => {
    const tracker = tracking([
      user('u1'),
      calls('a1', 'call_1'),
      result('r1', 'call_1'),
      user('u2'),
    ]);
    expect(tracker.check([result('r2', 'call_9')])).toMatchObject({ kind: 'orphan_result' });
  });

  it('reports an orphan in a whole transcript on reset, as validateTranscript does', () => {
    const items = [
      user('u1'),
      calls('a1', 'call_1'),
      result('r1', 'call_1'),
      result('r9', 'call_9'),
    ];
    expect(new ProtocolTracker().reset(items)).toMatchObject({ index: 3, kind: 'orphan_result' });
    expect(validateTranscript(items).map((problem) => problem.kind)).toContain('orphan_result');
  });

  it('accepts results of parallel calls in any order and then a new turn', () => {
    const tracker = tracking([user('u1'), calls('a1', 'call_1', 'call_2')]);
    const next = [result('r2', 'call_2'), result('r1', 'call_1'), user('u2')];
    expect(tracker.check(next)).toBeNull();
    tracker.observe(next);
    expect(tracker.pendingCalls).toEqual([]);
  });

  it('refuses an item between a call and its result, and a reused call id', () => {
    const tracker = tracking([user('u1'), calls('a1', 'call_1')]);
    expect(tracker.check([user('u2')])).toMatchObject({ kind: 'result_out_of_order' });
    tracker.observe([result('r1', 'call_1')]);
    expect(tracker.check([calls('a2', 'call_1')])).toMatchObject({ kind: 'duplicate_call_id' });
  });
});

describe('ProtocolTracker item ids', () => {
  it('refuses an id already in the history or repeated in the batch, and forgets ids a reset dropped', () => {
    const tracker = tracking([user('u1'), user('u2')]);
    expect(tracker.check([user('u1')], 2)).toMatchObject({
      index: 2,
      id: 'u1',
      kind: 'duplicate_item_id',
    });
    expect(tracker.check([user('u3'), user('u3')], 2)).toMatchObject({
      index: 3,
      kind: 'duplicate_item_id',
    });
    expect(tracker.reset([user('u2'), user('u1'), user('u1')])).toMatchObject({
      index: 2,
      kind: 'duplicate_item_id',
    });
    tracker.reset([user('u2')]);
    expect(tracker.check([user('u1')], 1)).toBeNull();
  });
});
