import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type FakeReply, fakeFaults } from './fake-replies.js';
import { writeReply } from './fake-reply-writer.js';
import type { FakeChatRequestBody, FakeRequest } from './fake-request.js';

/** Decides the reply to a request once the queue of scripted replies is empty. */
export type FakeReplyHandler = (request: FakeRequest) => FakeReply | Promise<FakeReply>;

export interface FakeOpenAIServerOptions {
  /** Replies given in order, one per chat completion request. */
  readonly replies?: readonly FakeReply[];
  /** Asked for a reply when the queue is empty. */
  readonly handler?: FakeReplyHandler;
  /** When set, requests without `Authorization: Bearer <apiKey>` get a 401 and use no reply. */
  readonly apiKey?: string;
}

export interface FakeOpenAIServer {
  /** Base URL for the openai SDK, including `/v1`, e.g. `http://127.0.0.1:54321/v1`. */
  readonly url: string;
  readonly port: number;
  /** Every request received, in arrival order, including ones that were refused. */
  readonly requests: readonly FakeRequest[];
  /** Scripted replies not used yet. */
  readonly pendingReplies: number;
  enqueue(...replies: readonly FakeReply[]): void;
  setHandler(handler: FakeReplyHandler | undefined): void;
  /** Ends hanging replies, destroys every open socket and stops listening. */
  close(): Promise<void>;
}

const chatCompletionsPath = '/v1/chat/completions';

/**
 * Starts a real HTTP server on 127.0.0.1 (a free port) that speaks the Chat Completions
 * protocol, JSON and SSE, and answers from scripted replies, so the real openai SDK can be
 * tested end to end, faults included. It listens on loopback only and never connects out.
 *
 * @example
 * ```ts
 * import { startFakeOpenAIServer } from 'loopkeeper/testing';
 * import { openAIChatModel } from 'loopkeeper';
 *
 * // A real HTTP server speaking Chat Completions: the real SDK, no network.
 * const server = await startFakeOpenAIServer({ replies: [{ text: 'Hello from the fake.' }] });
 * const model = openAIChatModel({ baseURL: server.url, apiKey: 'test', model: 'fake' });
 * // ... run a loop with `model`, then inspect server.requests
 * await server.close();
 * ```
 */
export async function startFakeOpenAIServer({
  replies = [],
  handler,
  apiKey,
}: FakeOpenAIServerOptions = {}): Promise<FakeOpenAIServer> {
  const queue: FakeReply[] = [...replies];
  const requests: FakeRequest[] = [];
  const sockets = new Set<Socket>();
  const closing = new AbortController();
  let currentHandler = handler;
  let callCounter = 0;
  const nextCallId = () => {
    callCounter += 1;
    return `call_${callCounter}`;
  };

  const server = createServer((incoming, response) => {
    void handleRequest(incoming, response).catch(() => response.destroy());
  });

  async function handleRequest(incoming: IncomingMessage, response: ServerResponse) {
    const request = await recordRequest({ incoming, index: requests.length });
    requests.push(request);
    const requestId = `req_${request.index + 1}`;
    const signal = disconnectSignal({ response, closing: closing.signal });
    const reply = await chooseReply(request);
    await writeReply({ reply, request, response, signal, requestId, nextCallId });
  }

  async function chooseReply(request: FakeRequest): Promise<FakeReply> {
    if (request.method !== 'POST' || request.path !== chatCompletionsPath) {
      return fakeFaults.httpError({
        status: 404,
        message: `Unknown request URL: ${request.method} ${request.path}. The fake OpenAI server only serves POST ${chatCompletionsPath}.`,
        code: 'unknown_url',
      });
    }
    const { authorization } = request.headers;
    if (apiKey !== undefined && authorization !== `Bearer ${apiKey}`) {
      return fakeFaults.unauthorized();
    }
    if (!Array.isArray(request.body?.messages)) {
      return fakeFaults.httpError({
        status: 400,
        message: "The request body must be a JSON object with a 'messages' array.",
      });
    }
    const queued = queue.shift();
    if (queued !== undefined) return queued;
    if (currentHandler === undefined) {
      // 400 rather than 5xx so the SDK does not retry and the test fails with this message.
      return fakeFaults.httpError({
        status: 400,
        errorType: 'fake_server_exhausted',
        message: `The fake OpenAI server has no scripted reply left for request #${request.index + 1} (and no handler).`,
      });
    }
    try {
      return await currentHandler(request);
    } catch (error) {
      return fakeFaults.httpError({
        status: 400,
        errorType: 'fake_server_handler_failed',
        message: `The fake OpenAI server's handler threw: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  }

  server.on('connection', (socket) => {
    // Defence in depth: the server listens on loopback only, so this never triggers in practice.
    if (!isLoopback(socket.remoteAddress)) {
      socket.destroy();
      return;
    }
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

async function recordRequest({
  incoming,
  index,
}: {
  incoming: IncomingMessage;
  index: number;
}): Promise<FakeRequest> {
  const parts: Buffer[] = [];
  for await (const part of incoming) parts.push(part as Buffer);
  const rawBody = Buffer.concat(parts).toString('utf8');
  const body = parseBody(rawBody);
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
    stream: body?.stream === true,
  };
}

function parseBody(rawBody: string): FakeChatRequestBody | undefined {
  try {
    const parsed: unknown = JSON.parse(rawBody);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as FakeChatRequestBody)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Aborts when the client goes away before the reply is complete, or when the server closes. */
function disconnectSignal({
  response,
  closing,
}: {
  response: ServerResponse;
  closing: AbortSignal;
}): AbortSignal {
  const disconnected = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) disconnected.abort();
  });
  return AbortSignal.any([disconnected.signal, closing]);
}

function isLoopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}
