import { ModelError } from '../../errors/model-error.js';
import type { ModelResponse } from '../../model/types.js';
import { createItemId } from '../../transcript/ids.js';
import type { AssistantItem } from '../../transcript/types.js';
import { shapeProblems } from '../../vocabulary/schemas/describe-issues.js';
import { ModelAnswerSchema } from '../../vocabulary/schemas/host-input.js';
import type { LoopSession } from '../loop-session.js';

/**
 * Turns a model answer into an assistant item. Tool call ids the session has already seen (or
 * that repeat within the answer) get fresh ones, so a misbehaving model cannot break the protocol.
 */
export function toAssistantItem(response: ModelResponse, session: LoopSession): AssistantItem {
  assertWellFormedResponse(response);
  assertNotEmpty(response);
  const used = new Set<string>();
  const toolCalls = (response.toolCalls ?? []).map((call) => {
    const id =
      call.id === '' || used.has(call.id) || session.hasSeenCallId(call.id)
        ? createItemId('call')
        : call.id;
    used.add(id);
    return id === call.id ? call : { ...call, id };
  });
  return {
    kind: 'assistant',
    id: createItemId('assistant'),
    ...(response.text === undefined ? {} : { text: response.text }),
    ...(response.reasoning === undefined || response.reasoning.length === 0
      ? {}
      : { reasoning: response.reasoning }),
    ...(toolCalls.length === 0 ? {} : { toolCalls }),
  };
}

/**
 * Refuses an answer with neither text nor tool calls (the output limit hit before any text, or a
 * content filter). Logged, it would become an assistant message with `content: null`, which
 * OpenAI rejects with a 400 on every later request: the run fails instead and logs nothing.
 */
function assertNotEmpty(response: ModelResponse): void {
  const text = (response as { text?: unknown }).text;
  const calls = (response as { toolCalls?: unknown }).toolCalls;
  if ((typeof text === 'string' && text !== '') || (Array.isArray(calls) && calls.length > 0)) {
    return;
  }
  const reason = response.finishReason ?? 'unknown';
  throw new ModelError(
    `The model answered with neither text nor tool calls (finish_reason: ${reason}); the answer was not logged.`,
    { kind: 'empty_answer' },
  );
}

/** Refuses a malformed answer (as sloppy compatible servers send) before it can reach the log. */
function assertWellFormedResponse(response: ModelResponse): void {
  const problems = shapeProblems(ModelAnswerSchema, response, 'the answer');
  if (problems.length > 0) {
    throw new ModelError(`The model's answer is malformed: ${problems.join('; ')}`, {
      kind: 'invalid_response',
    });
  }
}
