import { checkItem } from './check-item.js';
import { isRecord } from './describe-value.js';
import { createItemId } from './ids.js';
import type { AssistantItem, Item, Repair, ToolResultItem } from './types.js';

/** Content of the result `repairTranscript` writes for a call that was never answered. */
export const UNANSWERED_CALL_CONTENT =
  'Error: loopkeeper synthesized this result because the tool call was never answered. ' +
  'The tool may or may not have run; its output is unknown.';

export interface RepairTranscriptOptions {
  /** Makes the ids of renamed, changed and synthesized items and renamed calls. */
  readonly createId?: () => string;
}

export interface RepairedTranscript {
  readonly items: Item[];
  readonly repairs: Repair[];
}

/** One surviving item on its way to the output; `newId` is set once its id has to change. */
interface Draft {
  readonly index: number;
  item: Item;
  newId?: string;
}

interface Call {
  readonly owner: Draft;
  readonly name: string;
  answered: boolean;
}

/**
 * Makes any list of values into a protocol-valid transcript and reports every change:
 * drops invalid items, orphan and duplicate results; renames duplicate item and call ids;
 * moves misplaced results into the block after their call; corrects a result's tool name;
 * answers unanswered calls with a synthetic error result (`UNANSWERED_CALL_CONTENT`).
 * A changed item gets a new id, because an id must always name the same content.
 * The output always passes `validateTranscript`.
 */
export function repairTranscript(
  items: readonly unknown[],
  { createId = () => createItemId() }: RepairTranscriptOptions = {},
): RepairedTranscript {
  const repairs: Repair[] = [];
  const drafts = keepValidItems(items, repairs);
  const usedIds = new Set<string>();
  const freshId = () => {
    let id = createId();
    while (usedIds.has(id)) id = createId();
    usedIds.add(id);
    return id;
  };
  for (const draft of drafts) collectIds(draft.item, usedIds);
  renameDuplicateItemIds(drafts, freshId, repairs);
  renameDuplicateCallIds(drafts, freshId, repairs);

  const calls = new Map<string, Call>();
  for (const draft of drafts) {
    if (draft.item.kind !== 'assistant') continue;
    for (const call of draft.item.toolCalls ?? []) {
      calls.set(call.id, { owner: draft, name: call.name, answered: false });
    }
  }
  const blocks = new Map<Draft, Draft[]>();
  const attach = (draft: Draft, call: Call) => {
    call.answered = true;
    const result = draft.item as ToolResultItem;
    if (result.toolName !== call.name) {
      draft.item = { ...result, toolName: call.name };
      draft.newId ??= freshId();
      repairs.push(
        withIds(draft, result.id, {
          kind: 'corrected_tool_name',
          callId: result.callId,
          message: `tool result named tool '${result.toolName}'; its call was to '${call.name}'`,
        }),
      );
    }
    blocks.set(call.owner, [...(blocks.get(call.owner) ?? []), draft]);
  };

  // Results already in place claim their calls first, so a stray copy never displaces them.
  const misplaced: Draft[] = [];
  let block: Draft | undefined;
  for (const draft of drafts) {
    const item = draft.item;
    if (item.kind !== 'toolResult') {
      block = item.kind === 'assistant' && item.toolCalls !== undefined ? draft : undefined;
      continue;
    }
    const call = calls.get(item.callId);
    if (call !== undefined && call.owner === block && !call.answered) attach(draft, call);
    else misplaced.push(draft);
  }
  for (const draft of misplaced) {
    const item = draft.item as ToolResultItem;
    const call = calls.get(item.callId);
    if (call === undefined) {
      repairs.push(
        drop(draft, 'dropped_orphan_result', `no assistant item made call '${item.callId}'`),
      );
    } else if (call.answered) {
      repairs.push(
        drop(draft, 'dropped_duplicate_result', `call '${item.callId}' already has a result`),
      );
    } else {
      attach(draft, call);
      repairs.push(
        withIds(draft, item.id, {
          kind: 'moved_result',
          callId: item.callId,
          message: `moved the result into the block directly after its assistant item ${call.owner.index}`,
        }),
      );
    }
  }
  for (const [callId, call] of calls) {
    if (call.answered) continue;
    const synthetic: ToolResultItem = {
      kind: 'toolResult',
      id: freshId(),
      callId,
      toolName: call.name,
      content: UNANSWERED_CALL_CONTENT,
      isError: true,
    };
    blocks.set(call.owner, [
      ...(blocks.get(call.owner) ?? []),
      { index: call.owner.index, item: synthetic },
    ]);
    repairs.push({
      kind: 'answered_unanswered_call',
      index: call.owner.index,
      id: call.owner.newId ?? call.owner.item.id,
      callId,
      message: `call '${callId}' (${call.name}) had no result; added synthetic error result '${synthetic.id}'`,
    });
  }

  const output: Item[] = [];
  for (const draft of drafts) {
    if (draft.item.kind === 'toolResult') continue;
    output.push(finish(draft));
    for (const result of blocks.get(draft) ?? []) output.push(finish(result));
  }
  return { items: output, repairs: repairs.sort((left, right) => left.index - right.index) };
}

function keepValidItems(items: readonly unknown[], repairs: Repair[]): Draft[] {
  if (!Array.isArray(items)) {
    repairs.push({ kind: 'dropped_invalid_item', index: 0, message: 'transcript is not an array' });
    return [];
  }
  const drafts: Draft[] = [];
  items.forEach((value: unknown, index) => {
    const problems = checkItem(value, index);
    if (problems.length === 0) {
      drafts.push({ index, item: value as Item });
      return;
    }
    const { id } = isRecord(value) ? value : {};
    repairs.push({
      kind: 'dropped_invalid_item',
      index,
      ...(typeof id === 'string' ? { id } : {}),
      message: `dropped an invalid item: ${problems.map((problem) => problem.message).join('; ')}`,
    });
  });
  return drafts;
}

function collectIds(item: Item, usedIds: Set<string>): void {
  usedIds.add(item.id);
  if (item.kind === 'assistant') for (const call of item.toolCalls ?? []) usedIds.add(call.id);
}

function renameDuplicateItemIds(drafts: Draft[], freshId: () => string, repairs: Repair[]): void {
  const seen = new Set<string>();
  for (const draft of drafts) {
    if (!seen.has(draft.item.id)) {
      seen.add(draft.item.id);
      continue;
    }
    draft.newId = freshId();
    repairs.push(
      withIds(draft, draft.item.id, {
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
function renameDuplicateCallIds(drafts: Draft[], freshId: () => string, repairs: Repair[]): void {
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
        withIds(draft, item.id, {
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
        withIds(result, original.id, {
          kind: 'renamed_duplicate_call_id',
          callId: callId,
          message: `result now answers the renamed call '${rename.to}'`,
        }),
      );
    }
  });
}

function drop(draft: Draft, kind: Repair['kind'], reason: string): Repair {
  const item = draft.item as ToolResultItem;
  return {
    kind,
    index: draft.index,
    id: item.id,
    callId: item.callId,
    message: `dropped the result: ${reason}`,
  };
}

function withIds(draft: Draft, id: string, repair: Omit<Repair, 'index' | 'id' | 'newId'>): Repair {
  return {
    ...repair,
    index: draft.index,
    id,
    ...(draft.newId === undefined ? {} : { newId: draft.newId }),
  };
}

function finish(draft: Draft): Item {
  return draft.newId === undefined ? draft.item : { ...draft.item, id: draft.newId };
}
