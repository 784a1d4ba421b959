import o200k from 'gpt-tokenizer/encoding/o200k_base';
import gpt4o from 'gpt-tokenizer/model/gpt-4o';
import { createTokenCounter, fromChatMessages } from 'loopkeeper';
import { countRequest, TOOL_CALL_OVERHEAD_TOKENS } from 'loopkeeper/tokens';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadTranscriptFixtures } from '../support/transcripts.js';

interface RawToolCall {
  readonly function: { readonly name: string; readonly arguments: string };
}

interface RawMessage {
  readonly role: string;
  readonly content: string | null;
  readonly tool_calls?: readonly RawToolCall[];
}

const fixtures = loadTranscriptFixtures();

afterEach(() => {
  vi.restoreAllMocks();
});

describe('countRequest on the five real transcripts', () => {
  it.each(fixtures.map((fixture) => [fixture.file, fixture] as const))(
    '%s: plain encodeChat plus the documented price of each tool call, exactly',
    async (_file, fixture) => {
      const messages = fixture.messages as readonly RawMessage[];
      const counter = await createTokenCounter();
      const ours = countRequest({ counter, items: fromChatMessages(messages) });

      // encodeChat renders role and content only: it has no rendering for tool_calls at all.
      const plain = o200k.encodeChat(
        messages.map((message) => ({ role: message.role, content: message.content ?? '' })),
        'gpt-4o',
      ).length;
      const calls = messages.flatMap((message) => message.tool_calls ?? []);
      expect(calls.length).toBeGreaterThan(0);
      const callTokens = calls.reduce(
        (sum, call) =>
          sum +
          TOOL_CALL_OVERHEAD_TOKENS +
          o200k.encode(call.function.name).length +
          o200k.encode(call.function.arguments).length,
        0,
      );
      expect(ours).toBe(plain + callTokens);
    },
  );

  it.each(fixtures.map((fixture) => [fixture.file, fixture] as const))(
    '%s: equals gpt-tokenizer countChatCompletionTokens with calls as function_call',
    async (_file, fixture) => {
      const messages = fixture.messages as readonly RawMessage[];
      const counter = await createTokenCounter();
      // These transcripts make one call per assistant message, which function_call can carry.
      expect(messages.every((message) => (message.tool_calls?.length ?? 0) <= 1)).toBe(true);
      const reference = gpt4o.countChatCompletionTokens?.({
        messages: messages.map((message) => {
          const call = message.tool_calls?.[0];
          return {
            role: message.role,
            content: message.content ?? '',
            ...(call === undefined ? {} : { function_call: call.function }),
          };
        }),
      });
      expect(countRequest({ counter, items: fromChatMessages(messages) })).toBe(reference);
    },
  );

  it('counts every transcript once: a second count never reaches the encoder', async () => {
    const counter = await createTokenCounter();
    const transcripts = fixtures.map((fixture) => fromChatMessages(fixture.messages));
    const first = transcripts.map((items) => counter.count(items));
    const encoder = vi.spyOn(o200k, 'countTokens');
    expect(transcripts.map((items) => counter.count(items))).toEqual(first);
    expect(encoder).not.toHaveBeenCalled();
  });
});
