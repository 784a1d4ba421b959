import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type FakeFault, fakeFaults } from './fake-replies.js';
import type { FakeRequest } from './fake-request.js';

/** How a protocol refuses a request the shared plumbing turns away, in its own error shape. */
export interface FakeRefusals<Refusal> {
  readonly notFound: (message: string) => Refusal;
  readonly unauthorized: () => Refusal;
  readonly badRequest: (message: string) => Refusal;
  /** A 400 the SDK does not retry, so a test fails with the message (`errorType` names it). */
  readonly serverError: (errorType: string, message: string) => Refusal;
}

/** OpenAI's error shapes: the chat and Responses fakes refuse with these. */
const openAIRefusals: FakeRefusals<FakeFault> = {
  notFound: (message) => fakeFaults.httpError({ status: 404, message, code: 'unknown_url' }),
  unauthorized: () => fakeFaults.unauthorized(),
  badRequest: (message) => fakeFaults.httpError({ status: 400, message }),
  serverError: (errorType, message) => fakeFaults.httpError({ status: 400, errorType, message }),
};

/** What a fake server of one protocol plugs into the shared HTTP plumbing. */
export interface FakeHttpServerOptions<Reply, Body, Refusal = FakeFault> {
  readonly replies: readonly Reply[];
  readonly handler: ((request: FakeRequest<Body>) => Reply | Promise<Reply>) | undefined;
  readonly apiKey: string | undefined;
  /** Whether a request carries `apiKey`; default `authorization: Bearer <apiKey>`. */
  readonly authorized?: (request: FakeRequest<Body>, apiKey: string) => boolean;
  /** The protocol's refusals; default OpenAI's (`fakeFaults`). */
  readonly refusals?: FakeRefusals<Refusal>;
  /** The one path served, e.g. `/v1/chat/completions`. */
  readonly path: string;
  /** For error messages: `fake OpenAI server`. */
  readonly serverName: string;
  /** What is wrong with a parsed body, or undefined when it can be answered. */
  readonly bodyProblem: (body: Body | undefined) => string | undefined;
  readonly write: (options: FakeWriteOptions<Reply | Refusal, Body>) => Promise<void>;
}

/** One reply to write, with what the protocol's writer needs. */
export interface FakeWriteOptions<Reply, Body> {
  readonly reply: Reply;
  readonly request: FakeRequest<Body>;
  readonly response: ServerResponse;
  /** Aborted when the client disconnects or the server closes. */
  readonly signal: AbortSignal;
  readonly requestId: string;
  readonly nextCallId: () => string;
}

/** The server handle every fake returns. */
export interface FakeHttpServer<Reply, Body> {
  readonly url: string;
  readonly port: number;
  readonly requests: readonly FakeRequest<Body>[];
  readonly pendingReplies: number;
  enqueue(...replies: readonly Reply[]): void;
  setHandler(handler: ((request: FakeRequest<Body>) => Reply | Promise<Reply>) | undefined): void;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 (a free port) that answers one protocol path from scripted
 * replies, then from a handler; requests are recorded before they are answered. It listens on
 * loopback only and never connects out.
 */
export async function startFakeHttpServer<Reply, Body, Refusal = FakeFault>({
  replies,
  handler,
  apiKey,
  authorized = (request, key) => request.headers.authorization === `Bearer ${key}`,
  refusals = openAIRefusals as unknown as FakeRefusals<Refusal>,
  path,
  serverName,
  bodyProblem,
  write,
}: FakeHttpServerOptions<Reply, Body, Refusal>): Promise<FakeHttpServer<Reply, Body>> {
  const queue: Reply[] = [...replies];
  const requests: FakeRequest<Body>[] = [];
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
    const request = await recordRequest<Body>({ incoming, index: requests.length });
    requests.push(request);
    const requestId = `req_${request.index + 1}`;
    const signal = disconnectSignal({ response, closing: closing.signal });
    const reply = await chooseReply(request);
    await write({ reply, request, response, signal, requestId, nextCallId });
  }

  async function chooseReply(request: FakeRequest<Body>): Promise<Reply | Refusal> {
    if (request.method !== 'POST' || request.path !== path) {
      return refusals.notFound(
        `Unknown request URL: ${request.method} ${request.path}. The ${serverName} only serves POST ${path}.`,
      );
    }
    if (apiKey !== undefined && !authorized(request, apiKey)) return refusals.unauthorized();
    const problem = bodyProblem(request.body);
    if (problem !== undefined) return refusals.badRequest(problem);
    const queued = queue.shift();
    if (queued !== undefined) return queued;
    if (currentHandler === undefined) {
      return refusals.serverError(
        'fake_server_exhausted',
        `The ${serverName} has no scripted reply left for request #${request.index + 1} (and no handler).`,
      );
    }
    try {
      return await currentHandler(request);
    } catch (error) {
      return refusals.serverError(
        'fake_server_handler_failed',
        `The ${serverName}'s handler threw: ${error instanceof Error ? error.message : String(error)}`,
      );
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

async function recordRequest<Body>({
  incoming,
  index,
}: {
  incoming: IncomingMessage;
  index: number;
}): Promise<FakeRequest<Body>> {
  const parts: Buffer[] = [];
  for await (const part of incoming) parts.push(part as Buffer);
  const rawBody = Buffer.concat(parts).toString('utf8');
  const body = parseBody<Body>(rawBody);
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
    stream: (body as { stream?: unknown } | undefined)?.stream === true,
  };
}

function parseBody<Body>(rawBody: string): Body | undefined {
  try {
    const parsed: unknown = JSON.parse(rawBody);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Body)
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
