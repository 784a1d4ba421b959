import type { ServerResponse } from 'node:http';
import { abortableDelay } from '../abortable-delay.js';
import { type FakeRefusals, startFakeHttpServer } from '../fake-http-server.js';
import type { FakeRequest } from '../fake-request.js';
import { buildEvents, buildMessage, type MessageContext } from './fake-anthropic-message.js';
import {
  type FakeAnthropicAnswer,
  type FakeAnthropicBrokenStream,
  type FakeAnthropicHttpError,
  type FakeAnthropicReply,
  fakeAnthropicFaults,
} from './fake-anthropic-replies.js';

/**
 * One request the fake Anthropic server received, recorded before it was answered: method,
 * path, lower-case headers, the parsed JSON body (`model`, `system`, `messages`, `tools`,
 * `stream`, ...), the body exactly as it arrived, and whether it asked for a stream.
 */
export type FakeAnthropicRequest = FakeRequest<Readonly<Record<string, unknown>>>;

/** Decides the reply to a request once the queue of scripted replies is empty. */
export type FakeAnthropicHandler = (
  request: FakeAnthropicRequest,
) => FakeAnthropicReply | Promise<FakeAnthropicReply>;

export interface FakeAnthropicServerOptions {
  /** Replies given in order, one per Messages request. */
  readonly replies?: readonly FakeAnthropicReply[];
  readonly handler?: FakeAnthropicHandler;
  /** When set, requests without `x-api-key: <apiKey>` get a 401 and use no reply. */
  readonly apiKey?: string;
}

export interface FakeAnthropicServer {
  /** Base URL for `createAnthropic({baseURL})`, including `/v1`. */
  readonly url: string;
  readonly port: number;
  readonly requests: readonly FakeAnthropicRequest[];
  readonly pendingReplies: number;
  enqueue(...replies: readonly FakeAnthropicReply[]): void;
  setHandler(handler: FakeAnthropicHandler | undefined): void;
  /** Ends hanging replies, destroys every open socket and stops listening. */
  close(): Promise<void>;
}

/**
 * Starts a real HTTP server on 127.0.0.1 (a free port) that speaks the Anthropic Messages API,
 * JSON and server-sent events, and answers from scripted replies: thinking blocks with their
 * signatures, redacted thinking, text, parallel tool uses, and the API's faults. Point
 * `@ai-sdk/anthropic` (or any Anthropic client) at `url` to test end to end, offline.
 *
 * @example
 * ```ts
 * import { startFakeAnthropicServer } from 'loopkeeper/testing';
 *
 * const server = await startFakeAnthropicServer({
 *   replies: [{ thinking: [{ thinking: 'Plan.', signature: 'sig-1' }], text: 'Hello.' }],
 * });
 * // createAnthropic({ baseURL: server.url, apiKey: 'test' }) from @ai-sdk/anthropic talks to it.
 * console.log(server.url); // http://127.0.0.1:<port>/v1
 * await server.close();
 * ```
 */
export async function startFakeAnthropicServer({
  replies = [],
  handler,
  apiKey,
}: FakeAnthropicServerOptions = {}): Promise<FakeAnthropicServer> {
  let toolCounter = 0;
  const nextToolId = () => {
    toolCounter += 1;
    return `toolu_${String(toolCounter).padStart(4, '0')}`;
  };
  return startFakeHttpServer<
    FakeAnthropicReply,
    FakeAnthropicRequest['body'] & object,
    FakeAnthropicReply
  >({
    replies,
    handler,
    apiKey,
    authorized: (request, key) => request.headers['x-api-key'] === key,
    refusals: anthropicRefusals,
    path: '/v1/messages',
    serverName: 'fake Anthropic server',
    bodyProblem: (body) =>
      Array.isArray(body?.['messages']) ? undefined : 'messages: Field required',
    write: ({ reply, request, response, signal }) =>
      writeReply({
        reply,
        request,
        response,
        signal,
        context: (answer) => ({
          answer,
          requestedModel:
            typeof request.body?.['model'] === 'string' ? request.body['model'] : 'fake',
          rawBody: request.rawBody,
          messageId: `msg_fake_${request.index + 1}`,
          nextToolId,
        }),
      }),
  });
}

/** The Messages API's own error shapes for what the shared plumbing turns away. */
const anthropicRefusals: FakeRefusals<FakeAnthropicReply> = {
  notFound: (message) =>
    fakeAnthropicFaults.httpError({ status: 404, errorType: 'not_found_error', message }),
  unauthorized: () => fakeAnthropicFaults.unauthorized(),
  badRequest: (message) => fakeAnthropicFaults.httpError({ status: 400, message }),
  serverError: (errorType, message) =>
    fakeAnthropicFaults.httpError({ status: 400, errorType, message }),
};

async function writeReply({
  reply,
  request,
  response,
  signal,
  context,
}: {
  reply: FakeAnthropicReply;
  request: FakeAnthropicRequest;
  response: ServerResponse;
  signal: AbortSignal;
  context: (answer: FakeAnthropicAnswer) => MessageContext;
}): Promise<void> {
  const requestId = `req_fake_${request.index + 1}`;
  if (!('fault' in reply)) {
    if (!(await abortableDelay({ milliseconds: reply.delayMs ?? 0, signal }))) return;
    if (!request.stream) {
      response.writeHead(200, { 'content-type': 'application/json', 'request-id': requestId });
      response.end(JSON.stringify(buildMessage(context(reply))));
      return;
    }
    await writeEvents({
      response,
      signal,
      requestId,
      answer: reply,
      context,
      stopAfter: undefined,
    });
    return;
  }
  switch (reply.fault) {
    case 'hang':
      await abortableDelay({ milliseconds: Number.POSITIVE_INFINITY, signal });
      response.destroy();
      return;
    case 'reset':
      response.socket?.destroy();
      return;
    case 'http_error':
      writeHttpError(response, reply, requestId);
      return;
    case 'broken_stream':
      await writeEvents({
        response,
        signal,
        requestId,
        answer: reply.answer,
        context,
        stopAfter: reply,
      });
  }
}

async function writeEvents({
  response,
  signal,
  requestId,
  answer,
  context,
  stopAfter,
}: {
  response: ServerResponse;
  signal: AbortSignal;
  requestId: string;
  answer: FakeAnthropicAnswer;
  context: (answer: FakeAnthropicAnswer) => MessageContext;
  stopAfter: FakeAnthropicBrokenStream | undefined;
}): Promise<void> {
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'request-id': requestId,
  });
  const events = buildEvents(context(answer));
  const sent = stopAfter === undefined ? events : events.slice(0, stopAfter.afterEvents);
  for (const { event, data } of sent) {
    if (!(await abortableDelay({ milliseconds: answer.chunkDelayMs ?? 0, signal }))) return;
    response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }
  if (stopAfter === undefined) {
    response.end();
    return;
  }
  if (stopAfter.error !== undefined) {
    response.end(
      `event: error\ndata: ${JSON.stringify({ type: 'error', error: stopAfter.error })}\n\n`,
    );
    return;
  }
  // Let the written events leave before the cut, so the client sees a partial answer.
  await new Promise((resolve) => setImmediate(resolve));
  response.socket?.destroy();
}

function writeHttpError(
  response: ServerResponse,
  fault: FakeAnthropicHttpError,
  requestId: string,
): void {
  response.writeHead(fault.status, {
    'content-type': 'application/json',
    'request-id': requestId,
    ...fault.headers,
  });
  response.end(
    JSON.stringify({ type: 'error', error: { type: fault.errorType, message: fault.message } }),
  );
}
