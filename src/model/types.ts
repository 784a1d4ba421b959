import type { Item, ReasoningPart, ToolCall } from '../transcript/types.js';

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
