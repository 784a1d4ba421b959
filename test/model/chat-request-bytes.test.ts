import fc from 'fast-check';
import type { Item } from 'loopkeeper';
import {
  chatRequestBody,
  chatRequestBytes,
  type ModelRequest,
  type ToolSpec,
} from 'loopkeeper/model';
import { describe, expect, it } from 'vitest';
import { validTranscriptArbitrary } from '../support/arbitraries.js';

const signal = new AbortController().signal;
const decoder = new TextDecoder();

const tools: readonly ToolSpec[] = [
  {
    name: 'read_file',
    description: 'Reads a file "as is" — ünïcode too.',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
];

function request(transcript: readonly Item[], options: Partial<ModelRequest>): ModelRequest {
  return { transcript, tools: [], signal, ...options };
}

/** What the bytes must be: the UTF-8 of `JSON.stringify` of the body object. */
function expected(value: ModelRequest, temperature: number | undefined): string {
  return JSON.stringify(chatRequestBody({ request: value, model: 'test', temperature }));
}

function sent(value: ModelRequest, temperature: number | undefined): string {
  return decoder.decode(chatRequestBytes({ request: value, model: 'test', temperature }));
}

describe('chatRequestBytes', () => {
  it('equals JSON.stringify of chatRequestBody while one history array grows, is changed in place, or is replaced', () => {
    fc.assert(
      fc.property(
        validTranscriptArbitrary(),
        fc.option(fc.string({ maxLength: 20, unit: 'binary' }), { nil: undefined }),
        fc.option(fc.double({ min: 0, max: 2, noNaN: true }), { nil: undefined }),
        fc.boolean(),
        fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
        (transcript: Item[], instructions, temperature, withTools, cuts) => {
          const options = {
            ...(instructions === undefined ? {} : { instructions }),
            tools: withTools ? tools : [],
          };
          const history: Item[] = [];
          const earlier: { bytes: string; expected: string }[] = [];
          for (const cut of cuts) {
            const end = Math.min(transcript.length, history.length + (cut % 4));
            for (let index = history.length; index < end; index += 1) {
              history.push(transcript[index] as Item);
            }
            // In place, as no loop does: the bytes must still follow the array's content.
            if (cut % 7 === 6 && history.length > 1) history.reverse();
            const value = request(history, options);
            const bytes = sent(value, temperature);
            expect(bytes).toBe(expected(value, temperature));
            earlier.push({ bytes, expected: bytes });
          }
          for (const entry of earlier) expect(entry.bytes).toBe(entry.expected);
          const replaced = request([...history], options);
          expect(sent(replaced, temperature)).toBe(expected(replaced, temperature));
          const other = request(history, { ...options, instructions: 'other' });
          expect(sent(other, temperature)).toBe(expected(other, temperature));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('hands out a copy that a later request never changes', () => {
    const history: Item[] = [{ kind: 'user', id: 'first', content: 'Hello' }];
    const first = chatRequestBytes({ request: request(history, {}), model: 'm', temperature: 0 });
    const copy = Uint8Array.from(first);
    for (let index = 0; index < 200; index += 1) {
      history.push({ kind: 'user', id: `more-${index}`, content: 'x'.repeat(100) });
      chatRequestBytes({ request: request(history, {}), model: 'm', temperature: 0 });
    }
    expect(Uint8Array.from(first)).toEqual(copy);
    expect(first.byteLength).toBe(first.buffer.byteLength);
    expect(JSON.parse(decoder.decode(first))).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'Hello' }],
      temperature: 0,
    });
  });

  it('writes lone surrogates escaped, as JSON.stringify does', () => {
    const value = request([{ kind: 'user', id: 'u', content: 'a\ud800b' }], {});
    expect(sent(value, undefined)).toBe(expected(value, undefined));
  });
});
