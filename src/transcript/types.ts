/**
 * Provider-neutral transcript items. Items are immutable: once an item has entered the log
 * its `id` always names the same content, which is what lets token counts be cached per id.
 */

export interface TextPart {
  readonly type: 'text';
  readonly text: string;
}

export interface ImagePart {
  readonly type: 'image';
  readonly url: string;
  readonly detail?: 'auto' | 'low' | 'high';
}

export type UserContentPart = TextPart | ImagePart;

export interface UserItem {
  readonly kind: 'user';
  readonly id: string;
  readonly content: string | readonly UserContentPart[];
  readonly name?: string;
}

/** A value that survives `JSON.stringify` and `JSON.parse` unchanged. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/**
 * What a provider needs back, unchanged, to accept a reasoning part (or a compaction item) it produced, keyed by
 * provider (the adapter's name for it: `openai`, `anthropic`, ...). loopkeeper never reads,
 * edits or counts it; an adapter sends back only its own key and ignores the others. Examples:
 * `{openai: {id: 'rs_…', encryptedContent: '…'}}` for a Responses reasoning item,
 * `{anthropic: {signature: '…'}}` for a signed thinking block, `{anthropic: {redactedData: '…'}}`
 * for a redacted one (with empty `text`).
 */
export type ProviderData = { readonly [provider: string]: JsonValue };

/** `ProviderData` on a reasoning part. */
export type ReasoningProviderData = ProviderData;

export interface ReasoningPart {
  /** The reasoning as readable text; empty when the provider sent it only encrypted or redacted. */
  readonly text: string;
  /**
   * Opaque provider data (a signature, encrypted content, a server item id), persisted in the
   * log from schema version 5 on and sent back byte-identical. A compaction may drop the whole
   * part, never edit it.
   */
  readonly providerData?: ReasoningProviderData;
}

export interface ToolCall {
  readonly id: string;
  readonly name: string;
  /** The raw JSON string the model produced; it may be invalid JSON. */
  readonly arguments: string;
}

/**
 * How an item was spelled as an OpenAI Chat Completions message, where the item alone cannot
 * say it. `fromChatMessages` records it only when needed so that `toChatMessages` gives back
 * exactly the message it read; items made anywhere else simply leave it out, and code that
 * changes an item's text may keep or drop it (a stale `textPartLengths` is ignored).
 */
export interface ChatShape {
  /** The context item came from a `developer` message rather than a `system` one. */
  readonly role?: 'developer';
  /** The assistant message had no `content` key at all (rather than `content: null`). */
  readonly contentAbsent?: true;
  /** The text arrived as an array of text parts; their lengths, to split the text again. */
  readonly textPartLengths?: readonly number[];
  /** The assistant's `refusal` text. */
  readonly refusal?: string;
  /** Fields the message carried explicitly as `null` (they mean nothing, but round-trip). */
  readonly nullFields?: readonly ('refusal' | 'audio' | 'function_call' | 'reasoning_content')[];
  /** The assistant message carried `tool_calls: []` (some compatible servers send it). */
  readonly emptyToolCalls?: true;
  /** Send this context item's `name` even though chat providers may not accept its characters. */
  readonly keepName?: true;
}

export interface AssistantItem {
  readonly kind: 'assistant';
  readonly id: string;
  readonly text?: string;
  readonly reasoning?: readonly ReasoningPart[];
  readonly toolCalls?: readonly ToolCall[];
  readonly name?: string;
  readonly chatShape?: ChatShape;
}

export interface ToolResultItem {
  readonly kind: 'toolResult';
  readonly id: string;
  readonly callId: string;
  readonly toolName: string;
  readonly content: string;
  readonly isError: boolean;
  readonly chatShape?: ChatShape;
}

/**
 * Reference material put in by the host or by a compaction (a summary, memory notes).
 * Rendered as a system message; `name` tags its origin.
 */
export interface ContextItem {
  readonly kind: 'context';
  readonly id: string;
  readonly name?: string;
  readonly text: string;
  readonly chatShape?: ChatShape;
  /**
   * Opaque provider data, as on a reasoning part: a provider-side compaction item (OpenAI's
   * `{openai: {type: 'compaction', encryptedContent}}`) is a context item whose `text` says what
   * it stands for and whose state only that provider can read.
   */
  readonly providerData?: ProviderData;
}

export type Item = UserItem | AssistantItem | ToolResultItem | ContextItem;
export type ItemKind = Item['kind'];
/**
 * Every item kind, in a fixed order: for validating input and for exhaustive tables.
 *
 * @example
 * ```ts
 * import { ITEM_KINDS } from 'loopkeeper/transcript';
 * import type { Item } from 'loopkeeper';
 *
 * const counts = Object.fromEntries(ITEM_KINDS.map((kind) => [kind, 0]));
 * const history: Item[] = [{ kind: 'user', id: 'u1', content: 'Hi' }];
 * for (const item of history) counts[item.kind] = (counts[item.kind] ?? 0) + 1;
 * ```
 */
export const ITEM_KINDS: readonly ItemKind[] = ['user', 'assistant', 'toolResult', 'context'];

/**
 * Name of the context item a summarizing compaction inserts.
 *
 * @example
 * ```ts
 * import { COMPACTION_SUMMARY_NAME, type Item } from 'loopkeeper';
 *
 * const history: Item[] = [
 *   { kind: 'context', id: 'c1', name: COMPACTION_SUMMARY_NAME, text: '…' },
 * ];
 * const summaries = history.filter(
 *   (item) => item.kind === 'context' && item.name === COMPACTION_SUMMARY_NAME,
 * );
 * console.log(`${summaries.length} summary item(s)`);
 * ```
 */
export const COMPACTION_SUMMARY_NAME = 'loopkeeper:compaction_summary';

/**
 * Name of the context item that pins a plan the model set itself with the `update_plan` tool,
 * once the call is compacted away. The model wrote its text, so it is sent like a summary: a
 * user message holding the text as fenced reference data, never with system authority. A plan
 * the host sets (`plan.update`) is named `loopkeeper:plan` and keeps the system role.
 *
 * @example
 * ```ts
 * import { MODEL_PLAN_CONTEXT_NAME } from 'loopkeeper/compaction';
 * import type { Item } from 'loopkeeper';
 *
 * const modelPlans = (items: readonly Item[]) =>
 *   items.filter((item) => item.kind === 'context' && item.name === MODEL_PLAN_CONTEXT_NAME);
 * console.log(modelPlans([]).length);
 * ```
 */
export const MODEL_PLAN_CONTEXT_NAME = 'loopkeeper:model_plan';

export type ProtocolProblemKind =
  | 'invalid_item'
  | 'duplicate_item_id'
  | 'duplicate_call_id'
  | 'unanswered_call'
  | 'orphan_result'
  | 'duplicate_result'
  | 'result_out_of_order'
  | 'tool_name_mismatch'
  /** A chat message loopkeeper cannot represent without loss (audio, custom tools, ...). */
  | 'unsupported_message';

/** One break of the tool-call protocol: where it is and what is wrong. */
export interface ProtocolProblem {
  readonly index: number;
  readonly id?: string;
  readonly kind: ProtocolProblemKind;
  readonly message: string;
}

/** One change made by `repairTranscript`. */
export interface Repair {
  readonly kind:
    | 'dropped_orphan_result'
    | 'dropped_duplicate_result'
    | 'answered_unanswered_call'
    | 'dropped_invalid_item'
    | 'renamed_duplicate_id'
    | 'moved_result'
    | 'renamed_duplicate_call_id'
    | 'corrected_tool_name';
  /** Index of the affected item in the input. */
  readonly index: number;
  readonly id?: string;
  /** The id the repaired item carries in the output, when it differs from `id`. */
  readonly newId?: string;
  readonly callId?: string;
  readonly message: string;
}
