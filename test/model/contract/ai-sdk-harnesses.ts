import { createAnthropic } from '@ai-sdk/anthropic';
import {
  APICallError,
  type LanguageModelV3CallOptions,
  type LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { aiSdkModel } from 'loopkeeper/ai-sdk';
import {
  type FakeAnthropicReply,
  fakeAnthropicFaults,
  startFakeAnthropicServer,
} from 'loopkeeper/testing';
import type { ContractHarness, ContractReply } from './contract-harness.js';

type Fault = Extract<ContractReply, { fault: string }>;

/** The `APICallError` an AI SDK provider throws for each fault, with the API's status and headers. */
function apiCallError(reply: Exclude<Fault, { fault: 'hang' }>): APICallError {
  const table: Record<Exclude<Fault['fault'], 'hang'>, [number, string, Record<string, string>]> = {
    overflow: [400, 'prompt is too long: 201000 tokens > 200000 maximum', {}],
    payload_too_large: [413, 'Request exceeds the maximum allowed number of bytes.', {}],
    server_error: [500, 'Internal server error', { 'retry-after-ms': '10' }],
    unauthorized: [401, 'invalid x-api-key', {}],
    bad_request: [400, 'max_tokens: must be greater than 0', {}],
    rate_limited: [
      429,
      'Number of request tokens has exceeded your rate limit.',
      { 'retry-after': String(reply.fault === 'rate_limited' ? reply.retryAfterSeconds : 0) },
    ],
  };
  const [statusCode, message, headers] = table[reply.fault as keyof typeof table];
  return new APICallError({
    message,
    url: 'https://api.example.test/v1/messages',
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
    responseBody: JSON.stringify({ type: 'error', error: { type: 'error', message } }),
  });
}

function usageOf(reply: Extract<ContractReply, { text: string }>) {
  const usage = reply.usage ?? { promptTokens: 10, completionTokens: 5, cachedTokens: 0 };
  return {
    inputTokens: {
      total: usage.promptTokens,
      noCache: usage.promptTokens - usage.cachedTokens,
      cacheRead: usage.cachedTokens,
      cacheWrite: undefined,
    },
    outputTokens: { total: usage.completionTokens, text: undefined, reasoning: undefined },
  };
}

/** Enqueues `parts`, `delayMs` apart, and stops at once when `signal` aborts. */
function partsStream(
  parts: readonly LanguageModelV3StreamPart[],
  delayMs: number,
  signal: AbortSignal | undefined,
): ReadableStream<LanguageModelV3StreamPart> {
  let next = 0;
  return new ReadableStream({
    async pull(controller) {
      if (next > 0 && delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (signal?.aborted) {
        controller.error(signal.reason);
        return;
      }
      const part = parts[next];
      next += 1;
      if (part === undefined) controller.close();
      else controller.enqueue(part);
    },
  });
}

/** The AI SDK's own mock language model, answering the contract's replies in order. */
export const aiSdkMockHarness: ContractHarness = {
  name: 'aiSdkModel (MockLanguageModelV3)',
  retries: true,
  async start({ replies, stream, maxRetries, maxRetryWaitMs }) {
    const queue = [...replies];
    const sent: number[] = [];
    const take = (options: LanguageModelV3CallOptions): ContractReply => {
      sent.push(Buffer.byteLength(JSON.stringify(options.prompt)));
      const reply = queue.shift();
      if (reply === undefined) throw new Error('the contract scripted no reply for this request');
      if ('fault' in reply) {
        if (reply.fault === 'hang') return reply;
        throw apiCallError(reply);
      }
      return reply;
    };
    const never = () => new Promise<never>(() => {});
    const mock = new MockLanguageModelV3({
      provider: 'mock',
      modelId: 'mock-model',
      async doGenerate(options) {
        const reply = take(options);
        if ('fault' in reply) return never();
        if ('toolCalls' in reply) {
          return {
            content: reply.toolCalls.map((call) => ({
              type: 'tool-call' as const,
              toolCallId: call.id,
              toolName: call.name,
              input: JSON.stringify(call.arguments),
            })),
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
            usage: usageOf({ text: '' }),
            warnings: [],
          };
        }
        return {
          content: [{ type: 'text', text: reply.text }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: usageOf(reply),
          warnings: [],
        };
      },
      async doStream(options) {
        const reply = take(options);
        if ('fault' in reply) return never();
        const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
        if ('toolCalls' in reply) {
          for (const call of reply.toolCalls) {
            parts.push({
              type: 'tool-call',
              toolCallId: call.id,
              toolName: call.name,
              input: JSON.stringify(call.arguments),
            });
          }
          parts.push({
            type: 'finish',
            usage: usageOf({ text: '' }),
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          });
          return { stream: partsStream(parts, 0, options.abortSignal) };
        }
        parts.push({ type: 'text-start', id: 't' });
        const size = reply.slowStream ? 4 : 16;
        for (let start = 0; start < reply.text.length; start += size) {
          parts.push({ type: 'text-delta', id: 't', delta: reply.text.slice(start, start + size) });
        }
        parts.push(
          { type: 'text-end', id: 't' },
          { type: 'finish', usage: usageOf(reply), finishReason: { unified: 'stop', raw: 'stop' } },
        );
        return { stream: partsStream(parts, reply.slowStream ? 40 : 0, options.abortSignal) };
      },
    });
    return {
      model: aiSdkModel(mock, { stream, maxRetries, maxRetryWaitMs }),
      requests: () => sent.length,
      requestBytes: (index) => sent[index] ?? 0,
      close: async () => {},
    };
  },
};

function anthropicFault(reply: Fault): FakeAnthropicReply {
  switch (reply.fault) {
    case 'overflow':
      return fakeAnthropicFaults.promptTooLong();
    case 'payload_too_large':
      return fakeAnthropicFaults.requestTooLarge();
    case 'server_error':
      return fakeAnthropicFaults.httpError({
        status: 500,
        errorType: 'api_error',
        message: 'Internal server error',
        headers: { 'retry-after-ms': '10' },
      });
    case 'unauthorized':
      return fakeAnthropicFaults.unauthorized();
    case 'bad_request':
      return fakeAnthropicFaults.httpError({
        status: 400,
        message: 'max_tokens: must be greater than 0',
      });
    case 'hang':
      return fakeAnthropicFaults.hang();
    case 'rate_limited':
      return fakeAnthropicFaults.rateLimited({ retryAfterSeconds: reply.retryAfterSeconds });
  }
}

/** `@ai-sdk/anthropic` over real HTTP to the fake Anthropic Messages server. */
export const aiSdkAnthropicHarness: ContractHarness = {
  name: 'aiSdkModel (@ai-sdk/anthropic over HTTP)',
  retries: true,
  async start({ replies, stream, maxRetries, maxRetryWaitMs }) {
    const server = await startFakeAnthropicServer({
      apiKey: 'test-key',
      replies: replies.map((reply): FakeAnthropicReply => {
        if ('fault' in reply) return anthropicFault(reply);
        if ('toolCalls' in reply) {
          return {
            toolCalls: reply.toolCalls.map((call) => ({
              id: call.id,
              name: call.name,
              input: call.arguments,
            })),
          };
        }
        // Anthropic's input_tokens leave out the cache; the SDK's total adds it back.
        const usage = reply.usage;
        return {
          text: reply.text,
          ...(usage && {
            inputTokens: usage.promptTokens - usage.cachedTokens,
            cacheReadTokens: usage.cachedTokens,
            outputTokens: usage.completionTokens,
          }),
          ...(reply.slowStream && { chunkSize: 4, chunkDelayMs: 40 }),
        };
      }),
    });
    const anthropic = createAnthropic({ baseURL: server.url, apiKey: 'test-key' });
    return {
      model: aiSdkModel(anthropic('claude-test-4'), { stream, maxRetries, maxRetryWaitMs }),
      requests: () => server.requests.length,
      requestBytes: (index) => Buffer.byteLength(server.requests[index]?.rawBody ?? ''),
      close: () => server.close(),
    };
  },
};
