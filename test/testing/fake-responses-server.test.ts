import { ConfigError, ModelError } from 'loopkeeper';
import { openAIResponsesModel } from 'loopkeeper/model';
import {
  type FakeResponsesReply,
  type FakeResponsesServer,
  fakeFaults,
  startFakeResponsesServer,
} from 'loopkeeper/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { rejection } from '../support/rejection.js';

let server: FakeResponsesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function generate(reply: FakeResponsesReply, { stream = false } = {}) {
  server = await startFakeResponsesServer({ replies: [reply] });
  const model = openAIResponsesModel({
    baseURL: server.url,
    apiKey: 'test',
    model: 'gpt-test',
    stream,
    maxRetries: 0,
  });
  return model.generate({
    transcript: [{ kind: 'user', id: 'u1', content: 'Hi' }],
    tools: [],
    signal: new AbortController().signal,
  });
}

describe('startFakeResponsesServer with openAIResponsesModel', () => {
  for (const stream of [false, true]) {
    const mode = stream ? 'streaming' : 'one response';
    it(`a stream or body cut before the response completes is a typed failure (${mode})`, async () => {
      const error = await rejection(
        generate(fakeFaults.truncatedStream({ answer: { text: 'cut off here' }, afterChunks: 3 }), {
          stream,
        }),
      );
      expect(ModelError.isInstance(error)).toBe(true);
      expect((error as ModelError).kind).toBe(stream ? 'network' : 'invalid_response');
    });

    it(`an incomplete answer keeps its text and says why it stopped (${mode})`, async () => {
      const answer = await generate(
        { text: 'partial', incomplete: 'max_output_tokens' },
        { stream },
      );
      expect(answer).toMatchObject({ text: 'partial', finishReason: 'length' });
    });

    it(`reasoning comes back with its summary as text and the item as provider data (${mode})`, async () => {
      const answer = await generate(
        { reasoning: [{ summary: 'Think.', encryptedContent: 'secret' }], text: 'Done.' },
        { stream },
      );
      expect(answer.reasoning).toEqual([
        {
          text: 'Think.',
          providerData: {
            openai: { id: 'rs_req_1_1', encryptedContent: 'secret', summary: ['Think.'] },
          },
        },
      ]);
    });
  }

  it('refuses, as the real API does, a server item id sent with store: false', async () => {
    server = await startFakeResponsesServer({ replies: [{ text: 'never' }] });
    const response = await fetch(`${server.url}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'm',
        store: false,
        input: [{ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'x' }],
      }),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("Item with id 'rs_1' not found");
    expect(server.pendingReplies).toBe(1);
  });

  it('refuses a previous_response_id it never stored', async () => {
    server = await startFakeResponsesServer({ replies: [{ text: 'never' }] });
    const response = await fetch(`${server.url}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', input: 'hi', previous_response_id: 'resp_unknown' }),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("Previous response with id 'resp_unknown' not found");
  });

  it('refuses bad options with ConfigError', () => {
    const base = { apiKey: 'test', model: 'gpt-test' };
    expect(() => openAIResponsesModel({ ...base, conversation: 'server' as never })).toThrow(
      ConfigError,
    );
    expect(() =>
      openAIResponsesModel({ ...base, contextManagement: { compactThreshold: 0 } }),
    ).toThrow(ConfigError);
    expect(() => openAIResponsesModel({ ...base, model: '' })).toThrow(ConfigError);
  });
});
