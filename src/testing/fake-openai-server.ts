import { startFakeHttpServer } from './fake-http-server.js';
import type { FakeReply } from './fake-replies.js';
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
  return startFakeHttpServer<FakeReply, FakeChatRequestBody>({
    replies,
    handler,
    apiKey,
    path: '/v1/chat/completions',
    serverName: 'fake OpenAI server',
    bodyProblem: (body) =>
      Array.isArray(body?.messages)
        ? undefined
        : "The request body must be a JSON object with a 'messages' array.",
    write: writeReply,
  });
}
