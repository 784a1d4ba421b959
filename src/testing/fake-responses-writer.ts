import type { ServerResponse } from 'node:http';
import { abortableDelay } from './abortable-delay.js';
import type { FakeWriteOptions } from './fake-http-server.js';
import type { FakeFault, FakeTruncatedStreamFault } from './fake-replies.js';
import { jsonHeaders, startEventStream, writeFault } from './fake-reply-writer.js';
import { buildResponse, type ResponseContext, responseShell } from './fake-response-body.js';
import type {
  FakeResponsesAnswer,
  FakeResponsesReply,
  FakeResponsesRequestBody,
} from './fake-responses-replies.js';

type Options = FakeWriteOptions<FakeResponsesReply | FakeFault, FakeResponsesRequestBody> & {
  /** Called with the id of every response the server finishes, for `previous_response_id`. */
  readonly onFinished: (responseId: string) => void;
};

/** Sends one scripted Responses reply (an answer or a fault) over a real HTTP response. */
export async function writeResponsesReply(options: Options): Promise<void> {
  const { reply, signal } = options;
  if (!('fault' in reply)) {
    if (!(await abortableDelay({ milliseconds: reply.delayMs ?? 0, signal }))) return;
    await writeAnswer({ ...options, answer: reply });
    return;
  }
  await writeFault({
    ...options,
    fault: reply,
    writeTruncated: (fault) => writeTruncated({ ...options, fault }),
  });
}

async function writeAnswer(options: Options & { answer: FakeResponsesAnswer }): Promise<void> {
  const context = responseContext(options);
  if (!options.request.stream) {
    const response = buildResponse(context);
    options.onFinished(context.responseId);
    options.response.writeHead(200, jsonHeaders(options.requestId));
    options.response.end(JSON.stringify(response));
    return;
  }
  startEventStream(options);
  const events = buildEvents(context);
  for (const event of events) {
    if (
      !(await abortableDelay({
        milliseconds: options.answer.chunkDelayMs ?? 0,
        signal: options.signal,
      }))
    ) {
      return;
    }
    writeEvent(options.response, event);
  }
  options.onFinished(context.responseId);
  options.response.end();
}

/** Streams the first `afterChunks` events of the answer and cuts the stream before it finishes. */
async function writeTruncated(
  options: Options & { fault: FakeTruncatedStreamFault },
): Promise<void> {
  const { response, fault } = options;
  const { reasoning, ...rest } = fault.answer;
  const answer: FakeResponsesAnswer = {
    ...rest,
    ...(reasoning !== undefined && { reasoning: [{ summary: reasoning }] }),
  };
  const context = responseContext({ ...options, answer });
  if (options.request.stream) {
    const events = buildEvents(context);
    startEventStream(options);
    for (const event of events.slice(0, Math.min(fault.afterChunks, events.length - 1))) {
      writeEvent(response, event);
    }
  } else {
    const body = JSON.stringify(buildResponse(context));
    response.writeHead(200, jsonHeaders(options.requestId));
    response.write(body.slice(0, Math.floor(body.length / 2)));
  }
  await new Promise((resolve) => setImmediate(resolve));
  if (fault.how === 'end') response.end();
  else response.socket?.destroy();
}

type StreamEvent = Readonly<Record<string, unknown>> & { readonly type: string };

/**
 * The server-sent events of a streamed answer, in order: `response.created`, then per output
 * item `response.output_item.added`, its deltas (text, function arguments) and
 * `response.output_item.done`, and last `response.completed` (or `response.incomplete`).
 */
function buildEvents(context: ResponseContext): StreamEvent[] {
  const size = Math.max(1, context.answer.chunkSize ?? 8);
  const final = buildResponse(context);
  const output = final['output'] as readonly Record<string, unknown>[];
  const events: StreamEvent[] = [{ type: 'response.created', response: responseShell(context) }];
  output.forEach((item, outputIndex) => {
    const id = item['id'];
    events.push({
      type: 'response.output_item.added',
      output_index: outputIndex,
      item: emptied(item),
    });
    if (item['type'] === 'message') {
      const text = ((item['content'] as { text: string }[])[0]?.text ?? '') as string;
      for (const delta of pieces(text, size)) {
        events.push({
          type: 'response.output_text.delta',
          item_id: id,
          output_index: outputIndex,
          content_index: 0,
          delta,
          logprobs: [],
        });
      }
      events.push({
        type: 'response.output_text.done',
        item_id: id,
        output_index: outputIndex,
        content_index: 0,
        text,
        logprobs: [],
      });
    }
    if (item['type'] === 'function_call') {
      const text = item['arguments'] as string;
      for (const delta of pieces(text, size)) {
        events.push({
          type: 'response.function_call_arguments.delta',
          item_id: id,
          output_index: outputIndex,
          delta,
        });
      }
    }
    events.push({ type: 'response.output_item.done', output_index: outputIndex, item });
  });
  events.push({
    type: final['status'] === 'incomplete' ? 'response.incomplete' : 'response.completed',
    response: final,
  });
  return events.map((event, index) => ({ ...event, sequence_number: index }));
}

/** An output item as `response.output_item.added` announces it, before its content arrives. */
function emptied(item: Readonly<Record<string, unknown>>): Record<string, unknown> {
  if (item['type'] === 'message') return { ...item, status: 'in_progress', content: [] };
  if (item['type'] === 'function_call') return { ...item, status: 'in_progress', arguments: '' };
  return item;
}

function writeEvent(response: ServerResponse, event: StreamEvent): void {
  response.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
}

function responseContext(options: Options & { answer: FakeResponsesAnswer }): ResponseContext {
  let counter = 0;
  return {
    answer: options.answer,
    body: options.request.body ?? {},
    responseId: `resp_${options.requestId}`,
    created: Math.floor(Date.now() / 1000),
    nextId: (prefix) => {
      if (prefix === 'call') return options.nextCallId();
      counter += 1;
      return `${prefix}_${options.requestId}_${counter}`;
    },
  };
}

function pieces(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let start = 0; start < text.length; start += size)
    parts.push(text.slice(start, start + size));
  return parts;
}
