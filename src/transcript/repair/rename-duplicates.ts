import type { AssistantItem, Item, Repair } from '../types.js';
import { type Draft, repairOf } from './draft.js';

/** Every id already taken, by items and by tool calls, so fresh ids never collide. */
export function collectIds(item: Item, usedIds: Set<string>): void {
  usedIds.add(item.id);
  if (item.kind === 'assistant') for (const call of item.toolCalls ?? []) usedIds.add(call.id);
}

/** A later item reusing an id keeps its content and gets a fresh id. */
export function renameDuplicateItemIds(
  drafts: Draft[],
  freshId: () => string,
  repairs: Repair[],
): void {
  const seen = new Set<string>();
  for (const draft of drafts) {
    if (!seen.has(draft.item.id)) {
      seen.add(draft.item.id);
      continue;
    }
    draft.newId = freshId();
    repairs.push(
      repairOf(draft, draft.item.id, {
        kind: 'renamed_duplicate_id',
        message: `item id '${draft.item.id}' was already used; renamed to '${draft.newId}'`,
      }),
    );
  }
}

/**
 * A repeated call id is renamed in the later assistant item, and so are the results in the
 * block right after that item: those are the ones that answer it.
 */
export function renameDuplicateCallIds(
  drafts: Draft[],
  freshId: () => string,
  repairs: Repair[],
): void {
  const seen = new Set<string>();
  drafts.forEach((draft, position) => {
    const item = draft.item;
    if (item.kind !== 'assistant' || item.toolCalls === undefined) return;
    const renames: { from: string; to: string }[] = [];
    const toolCalls = item.toolCalls.map((call) => {
      if (!seen.has(call.id)) {
        seen.add(call.id);
        return call;
      }
      const to = freshId();
      renames.push({ from: call.id, to });
      return { ...call, id: to };
    });
    if (renames.length === 0) return;
    draft.item = { ...item, toolCalls } satisfies AssistantItem;
    draft.newId ??= freshId();
    for (const { from, to } of renames) {
      repairs.push(
        repairOf(draft, item.id, {
          kind: 'renamed_duplicate_call_id',
          callId: from,
          message: `tool call id '${from}' was already used; renamed to '${to}'`,
        }),
      );
    }
    // Results for a call id this item also keeps unrenamed go to that call first.
    const keptHere = new Map<string, number>();
    for (const call of toolCalls) keptHere.set(call.id, (keptHere.get(call.id) ?? 0) + 1);
    const pending = [...renames];
    for (let next = position + 1; next < drafts.length; next += 1) {
      const result = drafts[next];
      if (result === undefined || result.item.kind !== 'toolResult') break;
      const callId = result.item.callId;
      const kept = keptHere.get(callId) ?? 0;
      if (kept > 0) {
        keptHere.set(callId, kept - 1);
        continue;
      }
      const renameIndex = pending.findIndex((rename) => rename.from === callId);
      const rename = pending[renameIndex];
      if (rename === undefined) continue;
      pending.splice(renameIndex, 1);
      const original = result.item;
      result.item = { ...original, callId: rename.to };
      result.newId ??= freshId();
      repairs.push(
        repairOf(result, original.id, {
          kind: 'renamed_duplicate_call_id',
          callId: callId,
          message: `result now answers the renamed call '${rename.to}'`,
        }),
      );
    }
  });
}
