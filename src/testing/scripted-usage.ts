import type { ModelRequest } from '../model/types.js';
import type { TokenCounter } from '../tokens/types.js';
import type { Item, ToolCall } from '../transcript/types.js';

/** The two counting operations the scripted model needs from a `TokenCounter`. */
export type UsageCounter = Pick<TokenCounter, 'count' | 'countText'>;

/**
 * Used when no real counter is given: about four characters a token plus a small per-item
 * overhead. Good enough to make usage grow with the transcript; pass a real counter when the
 * numbers must match what compaction triggers compute.
 */
export const roughCounter: UsageCounter = {
  count: (items: readonly Item[]) =>
    items.reduce((total, item) => total + 4 + Math.ceil(JSON.stringify(item).length / 4), 0),
  countText: (text: string) => Math.ceil(text.length / 4),
};

/**
 * Prompt tokens as a provider would report them: the transcript as rendered, the instructions,
 * the tool schemas (which a client-side count of items does not see) and a fixed overhead.
 */
export function promptTokensOf({
  request,
  counter,
  overheadTokens,
}: {
  request: ModelRequest;
  counter: UsageCounter;
  overheadTokens: number;
}): number {
  const instructions =
    request.instructions === undefined ? 0 : 4 + counter.countText(request.instructions);
  const tools = request.tools.length === 0 ? 0 : counter.countText(JSON.stringify(request.tools));
  return counter.count(request.transcript) + instructions + tools + overheadTokens;
}

export function completionTokensOf({
  text,
  reasoning,
  toolCalls,
  counter,
}: {
  text: string | undefined;
  reasoning: readonly { readonly text: string }[];
  toolCalls: readonly ToolCall[];
  counter: UsageCounter;
}): number {
  const parts = [text ?? '', ...reasoning.map((part) => part.text)];
  const textTokens = parts.reduce((total, part) => total + counter.countText(part), 0);
  const callTokens = toolCalls.reduce(
    (total, call) => total + 3 + counter.countText(call.name) + counter.countText(call.arguments),
    0,
  );
  return Math.max(1, textTokens + callTokens);
}
