import type { Item, ProtocolProblem, ToolCall } from '../transcript/types.js';

/**
 * Follows the tool-call protocol incrementally as items are appended, so checking that the next
 * request is valid costs O(new items) instead of a full validation of the session. Calls still
 * open at the end are allowed (a run in progress); everything else `validateTranscript` would
 * call a protocol break is refused: results without an open call, a second result for a call,
 * an item between a call and its result, a reused call id, a reused item id.
 */
export class ProtocolTracker {
  #itemIds = new Set<string>();
  /** The session's tool calls, made at the first: a session without tools holds none. */
  #calls: CallFacts | undefined;

  /** Forgets everything and follows `items` from scratch; returns their first break, or null. */
  reset(items: readonly Item[]): ProtocolProblem | null {
    this.#itemIds.clear();
    this.#calls = undefined;
    const problem = this.check(items);
    this.observe(items);
    return problem;
  }

  /** Calls of the latest assistant item that have no result yet, in call order. */
  get pendingCalls(): readonly ToolCall[] {
    return this.#calls === undefined ? [] : [...this.#calls.pending.values()];
  }

  hasSeenCallId(id: string): boolean {
    return this.#calls?.seen.has(id) === true;
  }

  /**
   * The first protocol break `items` would cause if appended now, or null. `startIndex` is the
   * position of the first of them in the effective history, for the problem's `index`.
   */
  check(items: readonly Item[], startIndex = 0): ProtocolProblem | null {
    const pending = new Map(this.#calls?.pending);
    const seen = new Set<string>();
    const answered = new Set<string>();
    const ids = new Set<string>();
    for (const [offset, item] of items.entries()) {
      const at = { index: startIndex + offset, id: item.id };
      if (this.#itemIds.has(item.id) || ids.has(item.id)) {
        return {
          ...at,
          kind: 'duplicate_item_id',
          message: `item id '${item.id}' is already used`,
        };
      }
      ids.add(item.id);
      if (item.kind === 'toolResult') {
        if (pending.delete(item.callId)) {
          answered.add(item.callId);
          continue;
        }
        const again = this.#calls?.answered.has(item.callId) === true || answered.has(item.callId);
        return {
          ...at,
          kind: again ? 'duplicate_result' : 'orphan_result',
          message: again
            ? `tool result ${item.id} answers call ${item.callId} a second time`
            : `tool result ${item.id} answers no open call (${item.callId})`,
        };
      }
      if (pending.size > 0) {
        return {
          ...at,
          kind: 'result_out_of_order',
          message: `item ${item.id} comes before every open tool call (${[...pending.keys()].join(', ')}) is answered`,
        };
      }
      if (item.kind !== 'assistant') continue;
      for (const call of item.toolCalls ?? []) {
        if (this.#calls?.seen.has(call.id) === true || seen.has(call.id)) {
          return {
            ...at,
            kind: 'duplicate_call_id',
            message: `tool call id ${call.id} is not unique`,
          };
        }
        seen.add(call.id);
        pending.set(call.id, call);
      }
    }
    return null;
  }

  observe(items: readonly Item[]): void {
    for (const item of items) {
      this.#itemIds.add(item.id);
      const calls = this.#calls;
      if (item.kind === 'toolResult') {
        if (calls?.pending.delete(item.callId) === true) calls.answered.add(item.callId);
      } else if (item.kind === 'assistant' && item.toolCalls !== undefined) {
        this.#calls ??= { seen: new Set(), answered: new Set(), pending: new Map() };
        const facts = this.#calls;
        for (const call of item.toolCalls) {
          facts.seen.add(call.id);
          facts.pending.set(call.id, call);
        }
      }
    }
  }
}

/** Every call id seen, the answered ones, and the calls still open, in call order. */
interface CallFacts {
  readonly seen: Set<string>;
  readonly answered: Set<string>;
  readonly pending: Map<string, ToolCall>;
}
