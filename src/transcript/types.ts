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

export interface ReasoningPart {
  readonly text: string;
}

export interface ToolCall {
  readonly id: string;
  readonly name: string;
  /** The raw JSON string the model produced; it may be invalid JSON. */
  readonly arguments: string;
}

export interface AssistantItem {
  readonly kind: 'assistant';
  readonly id: string;
  readonly text?: string;
  readonly reasoning?: readonly ReasoningPart[];
  readonly toolCalls?: readonly ToolCall[];
  readonly name?: string;
}

export interface ToolResultItem {
  readonly kind: 'toolResult';
  readonly id: string;
  readonly callId: string;
  readonly toolName: string;
  readonly content: string;
  readonly isError: boolean;
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
}

export type Item = UserItem | AssistantItem | ToolResultItem | ContextItem;
export type ItemKind = Item['kind'];
export const ITEM_KINDS: readonly ItemKind[] = ['user', 'assistant', 'toolResult', 'context'];

/** Name of the context item a summarizing compaction inserts. */
export const COMPACTION_SUMMARY_NAME = 'loopkeeper:compaction_summary';

export type ProtocolProblemKind =
  | 'invalid_item'
  | 'duplicate_item_id'
  | 'duplicate_call_id'
  | 'unanswered_call'
  | 'orphan_result'
  | 'duplicate_result'
  | 'result_out_of_order'
  | 'tool_name_mismatch';

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
    | 'moved_result';
  readonly index: number;
  readonly id?: string;
  readonly callId?: string;
  readonly message: string;
}
