import { ModelError } from '../errors/model-error.js';
import type {
  ModelAdapter,
  ModelDelta,
  ModelRequest,
  ModelResponse,
  ModelUsage,
} from '../model/types.js';
import type { TokenCounter } from '../tokens/types.js';
import type { Item, ReasoningPart, ToolCall } from '../transcript/types.js';
import { abortableDelay } from './abortable-delay.js';
import {
  answersFromChatMessages,
  answersFromTranscript,
  type RecordedChatMessage,
} from './scripted-replay.js';
import {
  isScriptedFailure,
  type ScriptedAnswer,
  type ScriptedToolCall,
  type ScriptedTurn,
  type ScriptedTurnFunction,
} from './scripted-turns.js';
import { completionTokensOf, promptTokensOf, roughCounter } from './scripted-usage.js';

export interface ScriptedModelOptions {
  /** Answers given in order, one per request. */
  readonly turns?: readonly ScriptedTurn[];
  /** Asked for a turn once `turns` is used up; without it the model then throws. */
  readonly script?: ScriptedTurnFunction;
  /** `estimate` (default) reports usage as a provider would; `false` reports none. */
  readonly usage?: 'estimate' | false;
  /** Counts the usage it reports; without one, a rough four-characters-a-token estimate. */
  readonly tokens?: Pick<TokenCounter, 'count' | 'countText'>;
  /** Added to every prompt count, as providers add formatting the client does not see (default 3). */
  readonly promptOverheadTokens?: number;
  /** When set, a request whose prompt tokens exceed it fails like a provider's 400 overflow. */
  readonly contextWindow?: number;
  /** `regenerate` gives every answered tool call a fresh id, so recordings can be replayed twice. */
  readonly callIds?: 'preserve' | 'regenerate';
  /**
   * Report the answer through `onDelta` as a streaming provider would (default true): reasoning,
   * then text, in word-sized pieces, then each tool call (a piece naming it, then its arguments
   * in pieces of up to 16 characters).
   */
  readonly streamDeltas?: boolean;
  readonly name?: string;
  /** The model name reported in responses (default `scripted-model`). */
  readonly model?: string;
}

/**
 * A `ModelAdapter` that answers from a script, offline. It records every request, reports usage
 * computed from what it was sent (so compaction triggers fire as in production), can simulate a
 * context window, and throws a clear `ModelError` when the script runs out.
 *
 * @example
 * ```ts
 * import { ScriptedModel } from 'loopkeeper/testing';
 * import { createAgentLoop, runTurn } from 'loopkeeper';
 *
 * // One scripted answer per model request: a tool call, then the final text.
 * const model = new ScriptedModel({
 *   turns: [{ toolCalls: [{ id: 'c1', name: 'now', arguments: {} }] }, { text: 'It is noon.' }],
 * });
 * const loop = createAgentLoop({ model });
 * ```
 */
export class ScriptedModel implements ModelAdapter {
  readonly name: string;
  /** The model name it reports in responses. */
  readonly model: string;
  /** Every request received, in order, including ones that failed. */
  readonly requests: ModelRequest[] = [];
  /** Every response given, in order. */
  readonly responses: ModelResponse[] = [];
  readonly #turns: readonly ScriptedTurn[];
  readonly #options: ScriptedModelOptions;
  #nextTurn = 0;
  #nextCallId = 0;

  constructor(options: ScriptedModelOptions = {}) {
    this.#options = options;
    this.#turns = options.turns ?? [];
    this.name = options.name ?? 'scripted';
    this.model = options.model ?? 'scripted-model';
  }

  /** Replays a recorded conversation: each assistant message answers one request, in order. */
  static fromChatMessages(
    messages: readonly RecordedChatMessage[],
    options: Omit<ScriptedModelOptions, 'turns'> = {},
  ): ScriptedModel {
    return new ScriptedModel({ ...options, turns: answersFromChatMessages(messages) });
  }

  /** Replays a transcript: each assistant item answers one request, in order. */
  static fromTranscript(
    items: readonly Item[],
    options: Omit<ScriptedModelOptions, 'turns'> = {},
  ): ScriptedModel {
    return new ScriptedModel({ ...options, turns: answersFromTranscript(items) });
  }

  /** Scripted turns not used yet. */
  get remainingTurns(): number {
    return this.#turns.length - this.#nextTurn;
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const requestNumber = this.requests.length;
    throwIfAborted(request.signal);
    const counter = this.#options.tokens ?? roughCounter;
    const promptTokens = promptTokensOf({
      request,
      counter,
      overheadTokens: this.#options.promptOverheadTokens ?? 3,
    });
    const { contextWindow } = this.#options;
    // Checked before a turn is taken: the provider refused the request, the script goes on after compaction.
    if (contextWindow !== undefined && promptTokens > contextWindow) {
      throw new ModelError(
        `This model's maximum context length is ${contextWindow} tokens. However, your messages resulted in ${promptTokens} tokens.`,
        { kind: 'context_overflow', status: 400 },
      );
    }
    const turn = await this.#takeTurn({ request, requestNumber });
    if (!(await abortableDelay({ milliseconds: turn.delayMs ?? 0, signal: request.signal }))) {
      throwIfAborted(request.signal);
    }
    if (isScriptedFailure(turn)) throw turn.error;

    const response = this.#respond({ answer: turn, request, promptTokens, counter });
    this.responses.push(response);
    return response;
  }

  async #takeTurn({ request, requestNumber }: { request: ModelRequest; requestNumber: number }) {
    const turn = this.#turns[this.#nextTurn];
    if (turn !== undefined) this.#nextTurn += 1;
    const chosen = turn ?? this.#options.script;
    if (chosen === undefined) {
      throw new ModelError(
        `ScriptedModel has no turn left for request #${requestNumber}: the script had ${this.#turns.length} turn${this.#turns.length === 1 ? '' : 's'} and no script function.`,
        { kind: 'unknown', retryable: false },
      );
    }
    return typeof chosen === 'function' ? await chosen(request) : chosen;
  }

  #respond({
    answer,
    request,
    promptTokens,
    counter,
  }: {
    answer: ScriptedAnswer;
    request: ModelRequest;
    promptTokens: number;
    counter: Pick<TokenCounter, 'count' | 'countText'>;
  }): ModelResponse {
    const reasoning = toReasoningParts(answer.reasoning);
    const toolCalls = (answer.toolCalls ?? []).map((call) => this.#toToolCall(call));
    if (this.#options.streamDeltas !== false && request.onDelta) {
      streamAnswer({ text: answer.text, reasoning, toolCalls, onDelta: request.onDelta });
    }
    const usage: ModelUsage | undefined =
      answer.usage ??
      (this.#options.usage === false
        ? undefined
        : {
            promptTokens,
            completionTokens: completionTokensOf({
              text: answer.text,
              reasoning,
              toolCalls,
              counter,
            }),
          });
    return {
      ...(answer.text !== undefined && { text: answer.text }),
      ...(reasoning.length > 0 && { reasoning }),
      ...(toolCalls.length > 0 && { toolCalls }),
      ...(usage !== undefined && { usage }),
      finishReason: answer.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      model: this.model,
    };
  }

  #toToolCall(call: ScriptedToolCall): ToolCall {
    const fresh = () => {
      this.#nextCallId += 1;
      return `call_scripted_${this.#nextCallId}`;
    };
    const id = this.#options.callIds === 'regenerate' || call.id === undefined ? fresh() : call.id;
    return {
      id,
      name: call.name,
      arguments:
        typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    };
  }
}

/** Reports an answer piece by piece, in the order a streaming provider sends it. */
function streamAnswer({
  text,
  reasoning,
  toolCalls,
  onDelta,
}: {
  text: string | undefined;
  reasoning: readonly ReasoningPart[];
  toolCalls: readonly ToolCall[];
  onDelta: (delta: ModelDelta) => void;
}): void {
  const words = (value: string) => value.match(/\S+\s*|\s+/g) ?? [];
  for (const part of reasoning) {
    for (const piece of words(part.text)) onDelta({ type: 'reasoning', delta: piece });
  }
  for (const piece of words(text ?? '')) onDelta({ type: 'text', delta: piece });
  for (const [index, call] of toolCalls.entries()) {
    const identity = { type: 'tool_call', index, callId: call.id, toolName: call.name } as const;
    onDelta({ ...identity, delta: '' });
    for (const piece of call.arguments.match(/[\s\S]{1,16}/g) ?? []) {
      onDelta({ ...identity, delta: piece });
    }
  }
}

function toReasoningParts(reasoning: ScriptedAnswer['reasoning']): readonly ReasoningPart[] {
  if (reasoning === undefined) return [];
  return typeof reasoning === 'string' ? [{ text: reasoning }] : reasoning;
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) {
    throw new ModelError('The model request was aborted.', {
      kind: 'aborted',
      cause: signal.reason,
    });
  }
}
