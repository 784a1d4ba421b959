import { type FakeHttpServer, startFakeHttpServer } from './fake-http-server.js';
import type { FakeRequest } from './fake-request.js';
import type { FakeResponsesReply, FakeResponsesRequestBody } from './fake-responses-replies.js';
import { writeResponsesReply } from './fake-responses-writer.js';

/** Decides the reply to a request once the queue of scripted replies is empty. */
export type FakeResponsesHandler = (
  request: FakeRequest<FakeResponsesRequestBody>,
) => FakeResponsesReply | Promise<FakeResponsesReply>;

export interface FakeResponsesServerOptions {
  /** Replies given in order, one per `POST /v1/responses`. */
  readonly replies?: readonly FakeResponsesReply[];
  /** Asked for a reply when the queue is empty. */
  readonly handler?: FakeResponsesHandler;
  /** When set, requests without `Authorization: Bearer <apiKey>` get a 401 and use no reply. */
  readonly apiKey?: string;
}

/** The fake Responses server: the request log, the reply queue and `close`. */
export type FakeResponsesServer = FakeHttpServer<FakeResponsesReply, FakeResponsesRequestBody>;

/**
 * Starts a real HTTP server on 127.0.0.1 (a free port) that speaks the OpenAI Responses API
 * (`POST /v1/responses`), JSON and SSE, and answers from scripted replies, faults included
 * (`fakeFaults`). Like the real API it refuses, with a 400, what a stateless client must not send:
 * with `store: false`, an input item that carries a server item id, or a reasoning item without
 * its `encrypted_content`; and a `previous_response_id` it never stored. With
 * `context_management` on, an input over its `compact_threshold` is compacted: the output opens
 * with a compaction item.
 *
 * @example
 * ```ts
 * import { openAIResponsesModel } from 'loopkeeper/model';
 * import { startFakeResponsesServer } from 'loopkeeper/testing';
 *
 * const server = await startFakeResponsesServer({
 *   replies: [{ reasoning: [{ summary: 'Greet back.' }], text: 'Hello!' }],
 * });
 * const model = openAIResponsesModel({ baseURL: server.url, apiKey: 'test', model: 'fake' });
 * // ... run a loop with `model`, then inspect server.requests
 * await server.close();
 * ```
 */
export async function startFakeResponsesServer({
  replies = [],
  handler,
  apiKey,
}: FakeResponsesServerOptions = {}): Promise<FakeResponsesServer> {
  const storedResponses = new Set<string>();
  return startFakeHttpServer<FakeResponsesReply, FakeResponsesRequestBody>({
    replies,
    handler,
    apiKey,
    path: '/v1/responses',
    serverName: 'fake Responses server',
    bodyProblem: (body) => bodyProblem(body, storedResponses),
    write: (options) =>
      writeResponsesReply({
        ...options,
        onFinished: (responseId) => {
          if (options.request.body?.store !== false) storedResponses.add(responseId);
        },
      }),
  });
}

function bodyProblem(
  body: FakeResponsesRequestBody | undefined,
  storedResponses: ReadonlySet<string>,
): string | undefined {
  if (body === undefined || (typeof body.input !== 'string' && !Array.isArray(body.input))) {
    return "The request body must be a JSON object with an 'input' string or array.";
  }
  const previous = body.previous_response_id;
  if (previous !== undefined && !storedResponses.has(previous)) {
    return `Previous response with id '${previous}' not found.`;
  }
  if (body.store !== false || typeof body.input === 'string') return undefined;
  for (const item of body.input) {
    const id = item['id'];
    if (typeof id === 'string') {
      return `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`;
    }
    if (item['type'] === 'reasoning' && typeof item['encrypted_content'] !== 'string') {
      return 'A reasoning item sent with `store: false` needs its `encrypted_content`.';
    }
  }
  return undefined;
}
