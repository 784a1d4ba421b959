import type { TokenCounter } from '../../tokens/types.js';
import type { ToolResultItem } from '../../transcript/types.js';
import { deriveItem } from './derived-item.js';

/** What a placeholder may say about the tool output it replaces. */
export interface PrunedToolOutput {
  readonly toolName: string;
  readonly callId: string;
  readonly isError: boolean;
  /** Tokens the result took in the prompt (its message overhead included). */
  readonly tokens: number;
  readonly characters: number;
}

/** Placeholder text, or a function writing it from the facts of the pruned output. */
export type ToolOutputPlaceholder = string | ((output: PrunedToolOutput) => string);

/** Ids of pruned copies start with this, which is how a result already pruned is recognised. */
export const PRUNED_ID_PREFIX = 'pruned';

export function defaultToolOutputPlaceholder({ toolName, tokens, characters }: PrunedToolOutput) {
  return `[Output of ${toolName} pruned to save context: it was ${tokens} tokens (${characters} characters). Re-run the tool if you need this output again.]`;
}

/**
 * Whether a result is a pruned copy made by a strategy. Pruned copies carry the prefix in their
 * id (ids survive the session log's replacement view), so a custom placeholder text needs no
 * marker of its own and pruning stays idempotent.
 */
export function isPrunedToolResult(item: ToolResultItem): boolean {
  return item.id.startsWith(`${PRUNED_ID_PREFIX}_`);
}

/**
 * The pruned copy of a result and the tokens it saves, or undefined when it is already pruned
 * or the placeholder would not be smaller than the output.
 */
export function pruneToolOutput(
  item: ToolResultItem,
  placeholder: ToolOutputPlaceholder,
  tokens: TokenCounter,
): { readonly item: ToolResultItem; readonly saved: number } | undefined {
  if (isPrunedToolResult(item)) return undefined;
  // Per-item counts are cached by id, so sizing old outputs costs no tokenizing; only the
  // short placeholder is new text.
  const facts: PrunedToolOutput = {
    toolName: item.toolName,
    callId: item.callId,
    isError: item.isError,
    tokens: tokens.countItem(item),
    characters: item.content.length,
  };
  const content = typeof placeholder === 'string' ? placeholder : placeholder(facts);
  // The chat spelling of the old output (its text-part split) does not describe the placeholder.
  const { chatShape: _stale, ...rest } = item;
  const pruned = deriveItem(item, { ...rest, content }, PRUNED_ID_PREFIX);
  const saved = facts.tokens - tokens.countItem(pruned);
  return saved > 0 ? { item: pruned, saved } : undefined;
}
