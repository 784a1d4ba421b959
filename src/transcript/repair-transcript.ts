import { createItemId } from './ids.js';
import { type Draft, finish, repairOf } from './repair/draft.js';
import { keepValidItems } from './repair/keep-valid-items.js';
import {
  collectIds,
  renameDuplicateCallIds,
  renameDuplicateItemIds,
} from './repair/rename-duplicates.js';
import type { Item, Repair, ToolResultItem } from './types.js';

/**
 * Content of the result `repairTranscript` writes for a call that was never answered.
 *
 * @example
 * ```ts
 * import { UNANSWERED_CALL_CONTENT } from 'loopkeeper/transcript';
 * import { repairTranscript } from 'loopkeeper';
 *
 * const { items } = repairTranscript([
 *   { kind: 'assistant', id: 'a1', toolCalls: [{ id: 'c1', name: 'deploy', arguments: '{}' }] },
 * ]);
 * console.log(
 *   items.some((item) => item.kind === 'toolResult' && item.content === UNANSWERED_CALL_CONTENT),
 * );
 * ```
 */
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
 *
 * @example
 * ```ts
 * import { repairTranscript, validateTranscript } from 'loopkeeper';
 *
 * const { items, repairs } = repairTranscript([
 *   { kind: 'assistant', id: 'a1', toolCalls: [{ id: 'c1', name: 'ls', arguments: '{}' }] },
 * ]);
 * console.log(repairs.length, validateTranscript(items)); // 1 repair, no problems
 * ```
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
        repairOf(draft, result.id, {
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
        repairOf(draft, item.id, {
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
    repairs.push(
      repairOf(call.owner, call.owner.item.id, {
        kind: 'answered_unanswered_call',
        callId,
        message: `call '${callId}' (${call.name}) had no result; added synthetic error result '${synthetic.id}'`,
      }),
    );
  }

  const output: Item[] = [];
  for (const draft of drafts) {
    if (draft.item.kind === 'toolResult') continue;
    output.push(finish(draft));
    for (const result of blocks.get(draft) ?? []) output.push(finish(result));
  }
  return { items: output, repairs: repairs.sort((left, right) => left.index - right.index) };
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
