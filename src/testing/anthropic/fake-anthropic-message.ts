import type { FakeAnthropicAnswer } from './fake-anthropic-replies.js';

type Block =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Readonly<Record<string, unknown>> };

/** One server-sent event of a streamed message. */
export interface SseEvent {
  readonly event: string;
  readonly data: Readonly<Record<string, unknown>>;
}

export interface MessageContext {
  readonly answer: FakeAnthropicAnswer;
  readonly requestedModel: string;
  readonly rawBody: string;
  readonly messageId: string;
  readonly nextToolId: () => string;
}

function blocksOf({ answer, nextToolId }: MessageContext): Block[] {
  return [
    ...(answer.thinking ?? []).map(
      (block): Block => ({
        type: 'thinking',
        thinking: block.thinking,
        signature: block.signature,
      }),
    ),
    ...(answer.redactedThinking ?? []).map((data): Block => ({ type: 'redacted_thinking', data })),
    ...(answer.text === undefined ? [] : [{ type: 'text', text: answer.text } as Block]),
    ...(answer.toolCalls ?? []).map(
      (call): Block => ({
        type: 'tool_use',
        id: call.id ?? nextToolId(),
        name: call.name,
        input: call.input,
      }),
    ),
  ];
}

function usageOf({ answer, rawBody }: MessageContext, blocks: readonly Block[]) {
  const output = JSON.stringify(blocks).length;
  return {
    input_tokens: answer.inputTokens ?? Math.max(1, Math.ceil(rawBody.length / 4)),
    output_tokens: answer.outputTokens ?? Math.max(1, Math.ceil(output / 4)),
    ...(answer.cacheReadTokens === undefined
      ? {}
      : { cache_read_input_tokens: answer.cacheReadTokens }),
  };
}

function stopReasonOf(answer: FakeAnthropicAnswer): string {
  return answer.stopReason ?? ((answer.toolCalls?.length ?? 0) > 0 ? 'tool_use' : 'end_turn');
}

/** The non-streaming Messages API body. */
export function buildMessage(context: MessageContext): Record<string, unknown> {
  const blocks = blocksOf(context);
  return {
    id: context.messageId,
    type: 'message',
    role: 'assistant',
    model: context.answer.model ?? context.requestedModel,
    content: blocks,
    stop_reason: stopReasonOf(context.answer),
    stop_sequence: null,
    usage: usageOf(context, blocks),
  };
}

function chunks(text: string, size: number): string[] {
  if (text === '') return [''];
  const parts: string[] = [];
  for (let start = 0; start < text.length; start += size)
    parts.push(text.slice(start, start + size));
  return parts;
}

/** The events of a streamed message, in the order the Messages API sends them. */
export function buildEvents(context: MessageContext): SseEvent[] {
  const blocks = blocksOf(context);
  const usage = usageOf(context, blocks);
  const size = Math.max(1, context.answer.chunkSize ?? 8);
  const events: SseEvent[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: context.messageId,
          type: 'message',
          role: 'assistant',
          model: context.answer.model ?? context.requestedModel,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 1 },
        },
      },
    },
    { event: 'ping', data: { type: 'ping' } },
  ];
  const delta = (index: number, value: Record<string, unknown>): SseEvent => ({
    event: 'content_block_delta',
    data: { type: 'content_block_delta', index, delta: value },
  });
  blocks.forEach((block, index) => {
    const start = (content_block: Record<string, unknown>): SseEvent => ({
      event: 'content_block_start',
      data: { type: 'content_block_start', index, content_block },
    });
    switch (block.type) {
      case 'thinking':
        events.push(start({ type: 'thinking', thinking: '' }));
        for (const part of chunks(block.thinking, size)) {
          events.push(delta(index, { type: 'thinking_delta', thinking: part }));
        }
        events.push(delta(index, { type: 'signature_delta', signature: block.signature }));
        break;
      case 'redacted_thinking':
        events.push(start({ type: 'redacted_thinking', data: block.data }));
        break;
      case 'text':
        events.push(start({ type: 'text', text: '' }));
        for (const part of chunks(block.text, size)) {
          events.push(delta(index, { type: 'text_delta', text: part }));
        }
        break;
      case 'tool_use':
        events.push(start({ type: 'tool_use', id: block.id, name: block.name, input: {} }));
        for (const part of chunks(JSON.stringify(block.input), size)) {
          events.push(delta(index, { type: 'input_json_delta', partial_json: part }));
        }
        break;
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  events.push(
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: stopReasonOf(context.answer), stop_sequence: null },
        usage: { output_tokens: usage.output_tokens },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  );
  return events;
}
