import { type Item, validateTranscript } from 'loopkeeper';
import { buildReplayPlan } from 'loopkeeper/testing';
import { describe, expect, it } from 'vitest';
import { loadRecordings } from '../../src/cli/demo/load-recordings.js';
import { CLOSING_ANSWER, CONTINUE_MESSAGE } from '../../src/testing/replay-plan.js';

const call = (id: string, name = 'bash') => ({ id, name, arguments: '{}' });

describe('buildReplayPlan', () => {
  it('keeps call ids unique across recordings that reuse them, with each call answered by its own output', () => {
    const recording = (output: string): Item[] => [
      { kind: 'user', id: 'u', content: 'go' },
      { kind: 'assistant', id: 'a', toolCalls: [call('call_same')] },
      {
        kind: 'toolResult',
        id: 't',
        callId: 'call_same',
        toolName: 'bash',
        content: output,
        isError: false,
      },
      { kind: 'assistant', id: 'b', text: 'done' },
    ];
    const plan = buildReplayPlan({
      recordings: [
        { name: 'first', items: recording('first output') },
        { name: 'second', items: recording('second output') },
      ],
    });
    const ids = plan.answers.flatMap(
      (answer) => answer.toolCalls?.map((toolCall) => toolCall.id) ?? [],
    );
    expect(new Set(ids).size).toBe(2);
    expect(ids.map((id) => plan.outputs.get(id ?? '')?.content)).toEqual([
      'first output',
      'second output',
    ]);
    expect(plan.toolNames).toEqual(['bash']);
  });

  it('closes a turn that ends on tool calls or has no answer, and opens one for answers without a user message', () => {
    const plan = buildReplayPlan({
      recordings: [
        {
          name: 'odd',
          items: [
            { kind: 'context', id: 's', text: 'system prompt' },
            { kind: 'user', id: 'u1', content: 'first' },
            { kind: 'assistant', id: 'a1', text: 'answered' },
            { kind: 'assistant', id: 'a2', toolCalls: [call('c1')] },
            {
              kind: 'toolResult',
              id: 't1',
              callId: 'c1',
              toolName: 'bash',
              content: 'x',
              isError: false,
            },
            { kind: 'user', id: 'u2', content: 'bye' },
          ],
        },
      ],
    });
    expect(plan.turns.map((turn) => turn.content)).toEqual(['first', CONTINUE_MESSAGE, 'bye']);
    expect(plan.answers.map((answer) => answer.text ?? 'calls')).toEqual([
      'answered',
      'calls',
      CLOSING_ANSWER,
      CLOSING_ANSWER,
    ]);
  });

  it('plans the bundled transcripts: one answer per request, every recorded call answerable', async () => {
    const recordings = await loadRecordings();
    expect(recordings).toHaveLength(5);
    for (const recording of recordings) expect(validateTranscript(recording.items)).toEqual([]);
    const plan = buildReplayPlan({ recordings });
    const users = recordings.flatMap((recording) =>
      recording.items.filter((item) => item.kind === 'user'),
    );
    expect(plan.turns).toHaveLength(users.length);
    const calls = plan.answers.flatMap((answer) => answer.toolCalls ?? []);
    expect(calls.every((toolCall) => plan.outputs.has(toolCall.id ?? ''))).toBe(true);
    // Every turn ends on a text answer, so each run ends cleanly.
    const finals = plan.answers.filter((answer) => answer.toolCalls === undefined);
    expect(finals).toHaveLength(plan.turns.length);
  });
});
