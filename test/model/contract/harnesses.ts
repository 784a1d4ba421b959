import { ModelError } from 'loopkeeper';
import { openAIChatModel, openAIResponsesModel } from 'loopkeeper/model';
import {
  type FakeFault,
  fakeFaults,
  ScriptedModel,
  type ScriptedTurn,
  startFakeOpenAIServer,
  startFakeResponsesServer,
} from 'loopkeeper/testing';
import type { ContractHarness, ContractReply } from './contract-harness.js';

/** The same fault as the real API sends it, for the fakes that speak HTTP. */
function httpFault(reply: Extract<ContractReply, { fault: string }>): FakeFault {
  switch (reply.fault) {
    case 'overflow':
      return fakeFaults.contextOverflow();
    case 'payload_too_large':
      return fakeFaults.payloadTooLarge();
    case 'server_error':
      // OpenAI may say how long to wait; a short wait keeps the retry tests fast.
      return { ...fakeFaults.serverError(), headers: { 'retry-after-ms': '10' } };
    case 'unauthorized':
      return fakeFaults.unauthorized();
    case 'bad_request':
      return fakeFaults.httpError({ status: 400, message: 'Invalid value for temperature.' });
    case 'hang':
      return fakeFaults.hang();
    case 'rate_limited':
      return fakeFaults.rateLimited({ retryAfterSeconds: reply.retryAfterSeconds });
  }
}

const slow = { chunkSize: 4, chunkDelayMs: 40 } as const;

/** A contract reply as both OpenAI fakes (chat and Responses) script it. */
function openAIReply(reply: ContractReply) {
  if ('fault' in reply) return httpFault(reply);
  if ('toolCalls' in reply) return { toolCalls: reply.toolCalls };
  return {
    text: reply.text,
    ...(reply.usage && { usage: reply.usage }),
    ...(reply.slowStream && slow),
  };
}

export const openAIChatHarness: ContractHarness = {
  name: 'openAIChatModel',
  retries: true,
  async start({ replies, stream, maxRetries, maxRetryWaitMs }) {
    const server = await startFakeOpenAIServer({
      replies: replies.map(openAIReply),
    });
    return {
      model: openAIChatModel({
        baseURL: server.url,
        apiKey: 'test',
        model: 'gpt-test',
        stream,
        maxRetries,
        maxRetryWaitMs,
      }),
      requests: () => server.requests.length,
      requestBytes: (index) => Buffer.byteLength(server.requests[index]?.rawBody ?? ''),
      close: () => server.close(),
    };
  },
};

export const openAIResponsesHarness: ContractHarness = {
  name: 'openAIResponsesModel',
  retries: true,
  async start({ replies, stream, maxRetries, maxRetryWaitMs }) {
    const server = await startFakeResponsesServer({
      replies: replies.map(openAIReply),
    });
    return {
      model: openAIResponsesModel({
        baseURL: server.url,
        apiKey: 'test',
        model: 'gpt-test',
        stream,
        maxRetries,
        maxRetryWaitMs,
      }),
      requests: () => server.requests.length,
      requestBytes: (index) => Buffer.byteLength(server.requests[index]?.rawBody ?? ''),
      close: () => server.close(),
    };
  },
};

/** The `ModelError` a provider's fault becomes, as a scripted model gives it. */
function scriptedFault(reply: Extract<ContractReply, { fault: string }>): ScriptedTurn {
  const kinds = {
    overflow: 'context_overflow',
    payload_too_large: 'payload_too_large',
    server_error: 'server',
    unauthorized: 'auth',
    bad_request: 'bad_request',
    rate_limited: 'rate_limited',
  } as const;
  if (reply.fault === 'hang') return { text: 'never', delayMs: Number.POSITIVE_INFINITY };
  return { error: new ModelError(`scripted ${reply.fault}`, { kind: kinds[reply.fault] }) };
}

/** A scripted model keeps no request log of its own: the harness counts what it was asked. */
export const scriptedHarness: ContractHarness = {
  name: 'ScriptedModel',
  retries: false,
  async start({ replies }) {
    const sent: number[] = [];
    const turns = replies.map((reply): ScriptedTurn => {
      const answer: ScriptedTurn = (() => {
        if ('fault' in reply) return scriptedFault(reply);
        if ('toolCalls' in reply) return { toolCalls: reply.toolCalls };
        if (reply.slowStream) {
          // Streams its first piece, then waits (until aborted) before the rest.
          return (request) => {
            request.onDelta?.({ type: 'text', delta: reply.text.slice(0, 4) });
            return { text: reply.text, delayMs: Number.POSITIVE_INFINITY };
          };
        }
        return { text: reply.text, ...(reply.usage && { usage: reply.usage }) };
      })();
      return (request) => {
        sent.push(Buffer.byteLength(JSON.stringify(request.transcript)));
        return typeof answer === 'function' ? answer(request) : answer;
      };
    });
    return {
      model: new ScriptedModel({ turns }),
      requests: () => sent.length,
      requestBytes: (index) => sent[index] ?? 0,
      close: async () => {},
    };
  },
};
