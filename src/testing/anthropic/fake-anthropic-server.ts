import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { abortableDelay } from '../abortable-delay.js';
import { buildEvents, buildMessage, type MessageContext } from './fake-anthropic-message.js';
import {
  type FakeAnthropicAnswer,
  type FakeAnthropicBrokenStream,
  type FakeAnthropicHttpError,
  type FakeAnthropicReply,
  fakeAnthropicFaults,
} from './fake-anthropic-replies.js';

/** One request the fake Anthropic server received, recorded before it was answered. */
export interface FakeAnthropicRequest {
  /** Position among all requests this server received, from 0. */
  readonly index: number;
  readonly method: string;
  /** The URL path, for example `/v1/messages`. */
  readonly path: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body (`model`, `system`, `messages`, `tools`, `stream`, ...), if it was JSON. */
  readonly body: Readonly<Record<string, unknown>> | undefined;
  /** The body exactly as it arrived, for byte-level checks. */
  readonly rawBody: string;
  readonly stream: boolean;
}

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

const messagesPath = '/v1/messages';

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
  const queue: FakeAnthropicReply[] = [...replies];
  const requests: FakeAnthropicRequest[] = [];
  const sockets = new Set<Socket>();
  const closing = new AbortController();
  let currentHandler = handler;
  let toolCounter = 0;
  const nextToolId = () => {
    toolCounter += 1;
    return `toolu_${String(toolCounter).padStart(4, '0')}`;
  };

  const server = createServer((incoming, response) => {
    void handleRequest(incoming, response).catch(() => response.destroy());
  });

  async function handleRequest(incoming: IncomingMessage, response: ServerResponse) {
    const request = await recordRequest(incoming, requests.length);
    requests.push(request);
    const disconnected = new AbortController();
    response.on('close', () => {
      if (!response.writableFinished) disconnected.abort();
    });
    const signal = AbortSignal.any([disconnected.signal, closing.signal]);
    const reply = await chooseReply(request);
    const context = (answer: FakeAnthropicAnswer): MessageContext => ({
      answer,
      requestedModel: typeof request.body?.['model'] === 'string' ? request.body['model'] : 'fake',
      rawBody: request.rawBody,
      messageId: `msg_fake_${request.index + 1}`,
      nextToolId,
    });
    await writeReply({ reply, request, response, signal, context });
  }

  async function chooseReply(request: FakeAnthropicRequest): Promise<FakeAnthropicReply> {
    if (request.method !== 'POST' || request.path !== messagesPath) {
      return fakeAnthropicFaults.httpError({
        status: 404,
        errorType: 'not_found_error',
        message: `Unknown request URL: ${request.method} ${request.path}. The fake Anthropic server only serves POST ${messagesPath}.`,
      });
    }
    if (apiKey !== undefined && request.headers['x-api-key'] !== apiKey) {
      return fakeAnthropicFaults.unauthorized();
    }
    if (!Array.isArray(request.body?.['messages'])) {
      return fakeAnthropicFaults.httpError({
        status: 400,
        message: 'messages: Field required',
      });
    }
    const queued = queue.shift();
    if (queued !== undefined) return queued;
    if (currentHandler === undefined) {
      return fakeAnthropicFaults.httpError({
        status: 400,
        errorType: 'fake_server_exhausted',
        message: `The fake Anthropic server has no scripted reply left for request #${request.index + 1} (and no handler).`,
      });
    }
    try {
      return await currentHandler(request);
    } catch (error) {
      return fakeAnthropicFaults.httpError({
        status: 400,
        errorType: 'fake_server_handler_failed',
        message: `The fake Anthropic server's handler threw: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  }

  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    get pendingReplies() {
      return queue.length;
    },
    enqueue(...more) {
      queue.push(...more);
    },
    setHandler(next) {
      currentHandler = next;
    },
    async close() {
      if (closing.signal.aborted) return;
      closing.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

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

async function recordRequest(
  incoming: IncomingMessage,
  index: number,
): Promise<FakeAnthropicRequest> {
  const parts: Buffer[] = [];
  for await (const part of incoming) parts.push(part as Buffer);
  const rawBody = Buffer.concat(parts).toString('utf8');
  let body: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(rawBody);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      body = parsed as Record<string, unknown>;
    }
  } catch {
    body = undefined;
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return {
    index,
    method: incoming.method ?? 'GET',
    path: new URL(incoming.url ?? '/', 'http://127.0.0.1').pathname,
    headers,
    body,
    rawBody,
    stream: body?.['stream'] === true,
  };
}
