import type { FakeToolCall } from './fake-replies.js';
import type { FakeResponsesAnswer, FakeResponsesRequestBody } from './fake-responses-replies.js';

/** What building one response needs: the answer, the request and fresh ids. */
export interface ResponseContext {
  readonly answer: FakeResponsesAnswer;
  readonly body: FakeResponsesRequestBody;
  readonly responseId: string;
  readonly created: number;
  /** A fresh id with `prefix` (`rs`, `msg`, `fc`, `cmp`, `call`). */
  readonly nextId: (prefix: string) => string;
}

type WireItem = Readonly<Record<string, unknown>> & { readonly type: string; readonly id: string };

/** The `response` object of a finished answer, as `POST /v1/responses` returns it. */
export function buildResponse(context: ResponseContext): Record<string, unknown> {
  const { answer, body } = context;
  const output = buildOutput(context);
  return {
    ...responseShell(context),
    status: answer.incomplete === undefined ? 'completed' : 'incomplete',
    incomplete_details: answer.incomplete === undefined ? null : { reason: answer.incomplete },
    output,
    usage: usageOf({ answer, body, output }),
  };
}

/** The fields every state of the response shares (`response.created` sends them with no output). */
export function responseShell(context: ResponseContext): Record<string, unknown> {
  const { body } = context;
  return {
    id: context.responseId,
    object: 'response',
    created_at: context.created,
    status: 'in_progress',
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    model: context.answer.model ?? body.model ?? 'fake-model',
    output: [],
    parallel_tool_calls: true,
    previous_response_id: body.previous_response_id ?? null,
    store: body.store ?? true,
    tools: body.tools ?? [],
    usage: null,
  };
}

/** Whether the server compacts before answering: asked for, or the input crossed the threshold. */
export function compactsNow(answer: FakeResponsesAnswer, body: FakeResponsesRequestBody): boolean {
  if (answer.compaction !== undefined) return answer.compaction;
  const threshold = body.context_management?.find(
    (entry) => entry.type === 'compaction',
  )?.compact_threshold;
  return typeof threshold === 'number' && inputTokens(body) > threshold;
}

function buildOutput(context: ResponseContext): WireItem[] {
  const { answer, body, nextId } = context;
  const output: WireItem[] = [];
  if (compactsNow(answer, body)) {
    const id = nextId('cmp');
    output.push({
      type: 'compaction',
      id,
      encrypted_content: `compacted:${id}:${inputTokens(body)}`,
    });
  }
  const encrypted = body.include?.includes('reasoning.encrypted_content') === true;
  for (const reasoning of answer.reasoning ?? []) {
    const id = nextId('rs');
    output.push({
      type: 'reasoning',
      id,
      summary:
        reasoning.summary === undefined ? [] : [{ type: 'summary_text', text: reasoning.summary }],
      ...(encrypted && { encrypted_content: reasoning.encryptedContent ?? `enc:${id}` }),
    });
  }
  if (answer.text !== undefined) {
    output.push({
      type: 'message',
      id: nextId('msg'),
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: answer.text, annotations: [], logprobs: [] }],
    });
  }
  for (const call of answer.toolCalls ?? []) output.push(functionCall(call, nextId));
  return output;
}

function functionCall(call: FakeToolCall, nextId: (prefix: string) => string): WireItem {
  return {
    type: 'function_call',
    id: nextId('fc'),
    call_id: call.id ?? nextId('call'),
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    status: 'completed',
  };
}

/** Explicit numbers win; the rest is a rough estimate (about four characters a token). */
function usageOf({
  answer,
  body,
  output,
}: {
  answer: FakeResponsesAnswer;
  body: FakeResponsesRequestBody;
  output: readonly WireItem[];
}): Record<string, unknown> {
  const input = answer.usage?.promptTokens ?? inputTokens(body);
  const produced =
    answer.usage?.completionTokens ?? Math.max(1, Math.ceil(JSON.stringify(output).length / 4));
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: answer.usage?.cachedTokens ?? 0 },
    output_tokens: produced,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + produced,
  };
}

/** A rough token count of what the request sends (instructions, input, tools). */
export function inputTokens(body: FakeResponsesRequestBody): number {
  const text =
    (body.instructions ?? '') + JSON.stringify(body.input ?? []) + JSON.stringify(body.tools ?? []);
  return Math.ceil(text.length / 4);
}
