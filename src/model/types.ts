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
  /** Called with each text delta when the adapter streams. */
  readonly onTextDelta?: (delta: string) => void;
}

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
