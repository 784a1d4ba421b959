import type { FakeFault, FakeToolCall, FakeUsage } from './fake-replies.js';

/** One reasoning item of a fake Responses answer. */
export interface FakeResponsesReasoning {
  /** The summary text; none gives an empty summary. */
  readonly summary?: string;
  /**
   * Sent as `encrypted_content` when the request asked for it (`include:
   * ['reasoning.encrypted_content']`); default `enc:<item id>`.
   */
  readonly encryptedContent?: string;
}

/** A successful Responses answer: reasoning items, text and/or (parallel) function calls. */
export interface FakeResponsesAnswer {
  readonly text?: string;
  readonly reasoning?: readonly FakeResponsesReasoning[];
  readonly toolCalls?: readonly FakeToolCall[];
  /** Explicit usage numbers; missing ones are estimated from the request (about 4 characters a token). */
  readonly usage?: FakeUsage;
  /**
   * Open the output with a compaction item, as OpenAI does when `context_management` is on and
   * the input crosses its `compact_threshold` (which the fake also does on its own).
   */
  readonly compaction?: boolean;
  /** End as `incomplete` for this reason instead of `completed`. */
  readonly incomplete?: 'max_output_tokens' | 'content_filter';
  /** Defaults to the model the request asked for. */
  readonly model?: string;
  /** Characters per streamed text or argument delta (default 8). */
  readonly chunkSize?: number;
  /** Pause between streamed events, so a client can act mid-stream (default 0). */
  readonly chunkDelayMs?: number;
  /** Wait this long before answering; ends early if the client disconnects. */
  readonly delayMs?: number;
}

export type FakeResponsesReply = FakeResponsesAnswer | FakeFault;

/**
 * The Responses request body as the fake server received it. Only the fields the server reads
 * are typed; everything else the client sent is kept as is.
 */
export interface FakeResponsesRequestBody {
  readonly model?: string;
  readonly input?: string | readonly Readonly<Record<string, unknown>>[];
  readonly instructions?: string;
  readonly tools?: readonly Readonly<Record<string, unknown>>[];
  readonly store?: boolean;
  readonly include?: readonly string[];
  readonly previous_response_id?: string;
  readonly context_management?: readonly {
    readonly type?: string;
    readonly compact_threshold?: number;
  }[];
  readonly stream?: boolean;
  readonly [field: string]: unknown;
}
