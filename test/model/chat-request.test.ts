import fc from 'fast-check';
import { type Item, toChatMessages } from 'loopkeeper';
import { chatRequestBody } from 'loopkeeper/model';
import { describe, expect, it } from 'vitest';
import { validTranscriptArbitrary } from '../support/arbitraries.js';

const signal = new AbortController().signal;

function body(transcript: readonly Item[], instructions?: string) {
  return chatRequestBody({
    request: {
      transcript,
      tools: [],
      signal,
      ...(instructions === undefined ? {} : { instructions }),
    },
    model: 'test',
    temperature: undefined,
  });
}

/** What a request sent before requests were built incrementally: every item rendered afresh. */
function renderedAfresh(transcript: readonly Item[], instructions?: string) {
  const sendable = transcript.filter(
    (item) =>
      item.kind !== 'assistant' ||
      (item.text !== undefined && item.text !== '') ||
      (item.toolCalls?.length ?? 0) > 0,
  );
  return toChatMessages(sendable, {
    validate: false,
    ...(instructions === undefined ? {} : { instructions }),
  });
}

describe('chatRequestBody', () => {
  it('sends the same messages as rendering afresh while one history array grows, is changed in place, or is replaced', () => {
    fc.assert(
      fc.property(
        validTranscriptArbitrary(),
        fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
        (transcript: Item[], instructions, cuts) => {
          const history: Item[] = [];
          const sent: { messages: unknown; expected: unknown }[] = [];
          for (const cut of cuts) {
            const end = Math.min(transcript.length, history.length + (cut % 4));
            for (let index = history.length; index < end; index += 1) {
              history.push(transcript[index] as Item);
            }
            if (cut % 7 === 6 && history.length > 1) {
              // In place, as no loop does: the request must still follow the array's content.
              history.reverse();
            }
            const { messages } = body(history, instructions);
            expect(messages).toEqual(renderedAfresh(history, instructions));
            sent.push({ messages, expected: structuredClone(messages) });
          }
          // A request handed out earlier is never changed by a later one.
          for (const request of sent) expect(request.messages).toEqual(request.expected);
          const replaced = [...history];
          expect(body(replaced, instructions).messages).toEqual(
            renderedAfresh(replaced, instructions),
          );
          expect(body(history, 'other instructions').messages).toEqual(
            renderedAfresh(history, 'other instructions'),
          );
        },
      ),
      { numRuns: 100 },
    );
  });

  it('renders each item once while the history grows', () => {
    const history: Item[] = [{ kind: 'user', id: 'first', content: 'Hello' }];
    const [first] = body(history).messages;
    history.push({ kind: 'assistant', id: 'answer', text: 'Hi' });
    const messages = body(history).messages;
    expect(messages[0]).toBe(first);
    expect(messages).toHaveLength(2);
  });
});
