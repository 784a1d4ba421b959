import type { ContextItem, Item, ReasoningPart, ToolCall } from '../transcript/types.js';

/** What a model sees of a tool: its name, description and JSON Schema parameters. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly parameters: Readonly<Record<string, unknown>>;
}

export interface ModelUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly cachedTokens?: number;
}

export interface ModelRequest {
  /** The host's system prompt, rendered first on every request. */
  readonly instructions?: string;
  readonly transcript: readonly Item[];
  readonly tools: readonly ToolSpec[];
  readonly signal: AbortSignal;
  /**
   * Called with each piece of the answer as it arrives, when the adapter streams: text,
   * reasoning and tool-call argument deltas, in the order the provider sent them. An adapter
   * that does not stream never calls it; the answer it returns is what counts either way.
   */
  readonly onDelta?: (delta: ModelDelta) => void;
}

/** A piece of the answer's text. */
export interface ModelTextDelta {
  readonly type: 'text';
  readonly delta: string;
}

/** A piece of the answer's reasoning (thinking) text, as the provider shows it. */
export interface ModelReasoningDelta {
  readonly type: 'reasoning';
  readonly delta: string;
}

/** A piece of one tool call's arguments (the raw JSON string, in order). */
export interface ModelToolCallDelta {
  readonly type: 'tool_call';
  /**
   * The call's position in the answer (0-based, as the provider numbers calls): the same as in
   * `ModelResponse.toolCalls` unless the provider skips numbers.
   */
  readonly index: number;
  /**
   * The call's id as the provider sent it; absent while the provider has not sent one. The
   * loop logs a fresh id for a call whose id repeats an earlier one, so `index` is the safer key.
   */
  readonly callId?: string;
  /** The tool's name, once the provider has sent it (usually with the first delta). */
  readonly toolName?: string;
  /** The next characters of the arguments; may be empty when a delta only names the call. */
  readonly delta: string;
}

/** What a streaming adapter reports through `ModelRequest.onDelta`. */
export type ModelDelta = ModelTextDelta | ModelReasoningDelta | ModelToolCallDelta;

export interface ModelResponse {
  readonly text?: string;
  readonly reasoning?: readonly ReasoningPart[];
  readonly toolCalls?: readonly ToolCall[];
  readonly usage?: ModelUsage;
  readonly finishReason?: string;
  /** The model that answered, as the provider names it. */
  readonly model: string;
  /**
   * The provider compacted the request's whole history on its side (OpenAI's `context_management`
   * compaction) before answering. The loop records a compaction marker of tier `provider` whose
   * view is `item` alone, so the next request sends `item` in place of everything it replaced;
   * the log keeps everything.
   */
  readonly providerCompaction?: ProviderCompaction;
}

/** A compaction the provider made; see `ModelResponse.providerCompaction`. */
export interface ProviderCompaction {
  /** Stands for the replaced history; its `providerData` holds what the provider needs back. */
  readonly item: ContextItem;
  /** Recorded as the marker's strategy, e.g. `openai:compaction`. */
  readonly strategy: string;
}

/**
 * The loop's only view of a model. Implementations throw `ModelError` for every failure so the
 * loop can tell an overflow (compact and retry) from an outage.
 */
export interface ModelAdapter {
  readonly name: string;
  /** The model requests ask for, as the provider names it (e.g. `gpt-4o`); telemetry reports it. */
  readonly model?: string;
  generate(request: ModelRequest): Promise<ModelResponse>;
}
