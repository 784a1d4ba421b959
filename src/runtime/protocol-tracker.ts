import type { Item, ToolCall } from '../transcript/types.js';

/**
 * Follows the tool-call protocol incrementally as items are appended, so checking that the next
 * request is valid costs O(new items) instead of a full validation of the session.
 */
export class ProtocolTracker {
  #seenCallIds = new Set<string>();
  #pending = new Map<string, ToolCall>();

  reset(items: readonly Item[]): void {
    this.#seenCallIds.clear();
    this.#pending.clear();
    this.observe(items);
  }

  /** Calls of the latest assistant item that have no result yet, in call order. */
  get pendingCalls(): readonly ToolCall[] {
    return [...this.#pending.values()];
  }

  hasSeenCallId(id: string): boolean {
    return this.#seenCallIds.has(id);
  }

  /** Returns a description of the first protocol break the items would cause, or null. */
  check(items: readonly Item[]): string | null {
    const pending = new Map(this.#pending);
    const seen = new Set<string>();
    for (const item of items) {
      if (item.kind === 'toolResult') {
        if (!pending.delete(item.callId))
          return `tool result ${item.id} answers no open call (${item.callId})`;
        continue;
      }
      if (pending.size > 0) return `item ${item.id} comes before every open tool call is answered`;
      if (item.kind === 'assistant') {
        for (const call of item.toolCalls ?? []) {
          if (this.#seenCallIds.has(call.id) || seen.has(call.id))
            return `tool call id ${call.id} is not unique`;
          seen.add(call.id);
          pending.set(call.id, call);
        }
      }
    }
    return null;
  }

  observe(items: readonly Item[]): void {
    for (const item of items) {
      if (item.kind === 'toolResult') {
        this.#pending.delete(item.callId);
      } else if (item.kind === 'assistant') {
        for (const call of item.toolCalls ?? []) {
          this.#seenCallIds.add(call.id);
          this.#pending.set(call.id, call);
        }
      }
    }
  }
}
