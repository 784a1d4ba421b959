import type { ServerResponse } from 'node:http';
import { abortableDelay } from './abortable-delay.js';
import { buildChunks, buildCompletion, type CompletionContext } from './fake-completion.js';
import type {
  FakeAnswer,
  FakeFault,
  FakeHttpErrorFault,
  FakeReply,
  FakeTruncatedStreamFault,
} from './fake-replies.js';
import type { FakeRequest } from './fake-request.js';

export interface WriteReplyOptions {
  readonly reply: FakeReply;
  readonly request: FakeRequest;
  readonly response: ServerResponse;
  /** Aborted when the client disconnects or the server closes. */
  readonly signal: AbortSignal;
  readonly requestId: string;
  readonly nextCallId: () => string;
}

/** Sends one scripted reply (an answer or a fault) over a real HTTP response. */
export async function writeReply(options: WriteReplyOptions): Promise<void> {
  const { reply, signal } = options;
  if (!('fault' in reply)) {
    if (!(await abortableDelay({ milliseconds: reply.delayMs ?? 0, signal }))) return;
    await writeAnswer({ ...options, answer: reply });
    return;
  }
  await writeFault({
    ...options,
    fault: reply,
    writeTruncated: (fault) => writeTruncated({ ...options, answer: fault.answer, fault }),
  });
}

/**
 * Sends a fault the same way for every fake protocol: an HTTP error, a raw response, a hang, a
 * reset, malformed JSON (as an SSE event when streaming). A truncated stream is the protocol's
 * own, so `writeTruncated` writes it.
 */
export async function writeFault({
  fault,
  request,
  response,
  signal,
  requestId,
  writeTruncated: truncated,
}: {
  readonly fault: FakeFault;
  readonly request: { readonly stream: boolean };
  readonly response: ServerResponse;
  readonly signal: AbortSignal;
  readonly requestId: string;
  readonly writeTruncated: (fault: FakeTruncatedStreamFault) => Promise<void>;
}): Promise<void> {
  if (fault.fault === 'hang') {
    await abortableDelay({ milliseconds: Number.POSITIVE_INFINITY, signal });
    response.destroy();
    return;
  }
  if (!(await abortableDelay({ milliseconds: fault.delayMs ?? 0, signal }))) return;
  switch (fault.fault) {
    case 'http_error':
      writeHttpError({ fault, response, requestId });
      return;
    case 'raw_response':
      response.writeHead(fault.status, { 'x-request-id': requestId, ...fault.headers });
      response.end(fault.body);
      return;
    case 'reset':
      response.socket?.destroy();
      return;
    case 'malformed_json':
      if (request.stream) {
        startEventStream({ response, requestId });
        response.end(`data: ${fault.body}\n\n`);
      } else {
        response.writeHead(200, jsonHeaders(requestId));
        response.end(fault.body);
      }
      return;
    case 'truncated_stream':
      await truncated(fault);
      return;
  }
}

async function writeAnswer(options: WriteReplyOptions & { answer: FakeAnswer }): Promise<void> {
  const context = completionContext(options);
  if (!options.request.stream) {
    options.response.writeHead(200, jsonHeaders(options.requestId));
    options.response.end(JSON.stringify(buildCompletion(context)));
    return;
  }
  startEventStream(options);
  for (const chunk of buildChunks(context)) {
    if (
      !(await abortableDelay({
        milliseconds: options.answer.chunkDelayMs ?? 0,
        signal: options.signal,
      }))
    )
      return;
    options.response.write(`data: ${JSON.stringify(chunk)}\n\n`);
  }
  options.response.end('data: [DONE]\n\n');
}

async function writeTruncated(
  options: WriteReplyOptions & {
    answer: FakeAnswer;
    fault: { readonly afterChunks: number; readonly how: 'end' | 'destroy' };
  },
): Promise<void> {
  const { response, fault } = options;
  const context = completionContext(options);
  if (options.request.stream) {
    const chunks = buildChunks(context);
    // Never reach the finish chunk: a truncated stream is one that has no finish_reason.
    const finishIndex = chunks.findIndex((chunk) =>
      chunk.choices.some((choice) => choice.finish_reason !== null),
    );
    startEventStream(options);
    for (const chunk of chunks.slice(0, Math.min(fault.afterChunks, finishIndex))) {
      response.write(`data: ${JSON.stringify(chunk)}\n\n`);
    }
  } else {
    const body = JSON.stringify(buildCompletion(context));
    response.writeHead(200, jsonHeaders(options.requestId));
    response.write(body.slice(0, Math.floor(body.length / 2)));
  }
  // Give the written bytes a moment to leave before the cut, so the client sees a partial answer.
  await new Promise((resolve) => setImmediate(resolve));
  if (fault.how === 'end') response.end();
  else response.socket?.destroy();
}

function writeHttpError({
  fault,
  response,
  requestId,
}: {
  fault: FakeHttpErrorFault;
  response: ServerResponse;
  requestId: string;
}): void {
  response.writeHead(fault.status, { ...jsonHeaders(requestId), ...fault.headers });
  response.end(
    JSON.stringify({
      error: {
        message: fault.message,
        type: fault.errorType ?? 'invalid_request_error',
        param: fault.param ?? null,
        code: fault.code ?? null,
      },
    }),
  );
}

export function startEventStream({
  response,
  requestId,
}: {
  response: ServerResponse;
  requestId: string;
}): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-request-id': requestId,
  });
  // Send the headers now so the client's request resolves before the first chunk.
  response.flushHeaders();
}

export function jsonHeaders(requestId: string): Record<string, string> {
  return { 'content-type': 'application/json', 'x-request-id': requestId };
}

function completionContext(options: WriteReplyOptions & { answer: FakeAnswer }): CompletionContext {
  return {
    answer: options.answer,
    body: options.request.body ?? {},
    completionId: `chatcmpl-${options.requestId}`,
    created: Math.floor(Date.now() / 1000),
    nextCallId: options.nextCallId,
  };
}
