import type { ServerResponse } from 'node:http';
import { abortableDelay } from './abortable-delay.js';
import { buildChunks, buildCompletion, type CompletionContext } from './fake-completion.js';
import type { FakeAnswer, FakeHttpErrorFault, FakeReply } from './fake-replies.js';
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
  const { reply, response, signal } = options;
  if (!('fault' in reply)) {
    if (!(await abortableDelay({ milliseconds: reply.delayMs ?? 0, signal }))) return;
    await writeAnswer({ ...options, answer: reply });
    return;
  }
  if (reply.fault === 'hang') {
    await abortableDelay({ milliseconds: Number.POSITIVE_INFINITY, signal });
    response.destroy();
    return;
  }
  if (!(await abortableDelay({ milliseconds: reply.delayMs ?? 0, signal }))) return;
  switch (reply.fault) {
    case 'http_error':
      writeHttpError({ fault: reply, response, requestId: options.requestId });
      return;
    case 'raw_response':
      response.writeHead(reply.status, { 'x-request-id': options.requestId, ...reply.headers });
      response.end(reply.body);
      return;
    case 'reset':
      response.socket?.destroy();
      return;
    case 'malformed_json':
      if (options.request.stream) {
        startEventStream({ response, requestId: options.requestId });
        response.end(`data: ${reply.body}\n\n`);
      } else {
        response.writeHead(200, jsonHeaders(options.requestId));
        response.end(reply.body);
      }
      return;
    case 'truncated_stream':
      await writeTruncated({ ...options, answer: reply.answer, fault: reply });
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

function startEventStream({
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

function jsonHeaders(requestId: string): Record<string, string> {
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
