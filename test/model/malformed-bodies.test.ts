import { ModelError } from 'loopkeeper';
import { fakeFaults } from 'loopkeeper/testing';
import { describe, expect, it } from 'vitest';
import { fakeServerModel, fakeServerPerTest } from '../support/fake-server.js';

const server = fakeServerPerTest();

/** Bodies a broken or hostile OpenAI-compatible server can send with status 200. */
const BODIES: readonly (readonly [string, string])[] = [
  ['not JSON', '{"choices": [{"message": {"role": "assist'],
  ['null', 'null'],
  ['a string', '"hello"'],
  ['choices as a string', '{"choices": "abc"}'],
  ['a null choice', '{"choices": [null]}'],
  ['a choice without a message', '{"choices": [{"index": 0, "finish_reason": "stop"}]}'],
  [
    'tool_calls as a string',
    '{"choices": [{"message": {"role": "assistant", "tool_calls": "call"}, "finish_reason": "stop"}]}',
  ],
  [
    'a null tool call',
    '{"choices": [{"message": {"role": "assistant", "tool_calls": [null]}, "finish_reason": "tool_calls"}]}',
  ],
  [
    'a tool call without a function',
    '{"choices": [{"message": {"role": "assistant", "tool_calls": [{"id": "c", "type": "function"}]}, "finish_reason": "tool_calls"}]}',
  ],
];

describe('openAIChatModel on malformed response bodies', () => {
  for (const [name, body] of BODIES) {
    it(`fails with model_invalid_response on ${name}`, async () => {
      server().enqueue(fakeFaults.rawResponse({ body }));
      const model = fakeServerModel(server(), { maxRetries: 0 });
      const error = await model
        .generate({
          transcript: [{ kind: 'user', id: 'u', content: 'Hi' }],
          tools: [],
          signal: new AbortController().signal,
        })
        .then(
          () => undefined,
          (caught: unknown) => caught,
        );
      expect(ModelError.isInstance(error), String(error)).toBe(true);
      expect((error as ModelError).code, (error as ModelError).message).toBe(
        'model_invalid_response',
      );
    });
  }
});
