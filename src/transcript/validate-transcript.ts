import { describeValue } from '../vocabulary/schemas/describe-issues.js';
import { checkItem } from './check-item.js';
import type { AssistantItem, Item, ProtocolProblem, ToolResultItem } from './types.js';

/**
 * Every problem that stops `items` from being a protocol-valid transcript; empty means valid.
 *
 * The rule is the strict one every chat provider accepts: the results of an assistant item's
 * tool calls form one contiguous block directly after it (in any order), one result per call.
 * Nothing may sit between an assistant item and its results, not even a context item, because
 * OpenAI rejects a `system` message between `tool_calls` and their `tool` messages.
 * Item ids are unique, tool call ids are unique across the transcript, no result lacks its
 * call, and a result's `toolName` matches its call's name. Structurally broken values are
 * reported as `invalid_item` and otherwise ignored, so one bad item yields one clear problem.
 *
 * @example
 * ```ts
 * import { validateTranscript } from 'loopkeeper';
 *
 * const problems = validateTranscript([
 *   { kind: 'user', id: 'u1', content: 'List files' },
 *   { kind: 'assistant', id: 'a1', toolCalls: [{ id: 'c1', name: 'ls', arguments: '{}' }] },
 * ]);
 * console.log(problems.map((problem) => problem.kind)); // ['unanswered_call']
 * ```
 */
export function validateTranscript(items: readonly unknown[]): ProtocolProblem[] {
  if (!Array.isArray(items)) {
    return [
      {
        index: 0,
        kind: 'invalid_item',
        message: `transcript is not an array (got ${describeValue(items)})`,
      },
    ];
  }
  const problems: ProtocolProblem[] = [];
  const valid: { readonly index: number; readonly item: Item }[] = [];
  items.forEach((value, index) => {
    const itemProblems = checkItem(value, index);
    if (itemProblems.length > 0) problems.push(...itemProblems);
    else valid.push({ index, item: value as Item });
  });
  problems.push(...duplicateItemIds(valid), ...callProtocol(valid));
  // A stable sort keeps the problems of one item in the order they were found.
  return problems.sort((left, right) => left.index - right.index);
}

type Indexed = readonly { readonly index: number; readonly item: Item }[];

function duplicateItemIds(valid: Indexed): ProtocolProblem[] {
  const firstIndex = new Map<string, number>();
  const problems: ProtocolProblem[] = [];
  for (const { index, item } of valid) {
    const first = firstIndex.get(item.id);
    if (first === undefined) firstIndex.set(item.id, index);
    else {
      problems.push({
        index,
        id: item.id,
        kind: 'duplicate_item_id',
        message: `item id '${item.id}' is already used by item ${first}`,
      });
    }
  }
  return problems;
}

interface CallOwner {
  readonly index: number;
  readonly item: AssistantItem;
  readonly name: string;
}

interface OpenCall {
  readonly callId: string;
  readonly name: string;
  answered: boolean;
}

function callProtocol(valid: Indexed): ProtocolProblem[] {
  const problems: ProtocolProblem[] = [];
  const owners = new Map<string, CallOwner>();
  for (const { index, item } of valid) {
    if (item.kind !== 'assistant') continue;
    for (const call of item.toolCalls ?? []) {
      const owner = owners.get(call.id);
      if (owner === undefined) owners.set(call.id, { index, item, name: call.name });
      else {
        problems.push({
          index,
          id: item.id,
          kind: 'duplicate_call_id',
          message:
            owner.index === index
              ? `tool call id '${call.id}' is used twice in this item`
              : `tool call id '${call.id}' is already used by item ${owner.index}`,
        });
      }
    }
  }

  // First pass: which calls are answered inside the block right after their assistant item.
  const answeredInPlace = new Set<string>();
  const misplaced: { index: number; item: ToolResultItem }[] = [];
  const unanswered: { index: number; item: AssistantItem; call: OpenCall }[] = [];
  let block: { index: number; item: AssistantItem; calls: OpenCall[] } | undefined;
  const closeBlock = () => {
    for (const call of block?.calls ?? []) {
      if (!call.answered && block !== undefined) {
        unanswered.push({ index: block.index, item: block.item, call });
      }
    }
    block = undefined;
  };
  for (const { index, item } of valid) {
    if (item.kind !== 'toolResult') {
      closeBlock();
      if (item.kind === 'assistant' && item.toolCalls !== undefined) {
        block = {
          index,
          item,
          calls: item.toolCalls.map((call) => ({
            callId: call.id,
            name: call.name,
            answered: false,
          })),
        };
      }
      continue;
    }
    const call = block?.calls.find((open) => open.callId === item.callId && !open.answered);
    if (call !== undefined) {
      call.answered = true;
      answeredInPlace.add(item.callId);
      if (item.toolName !== call.name) problems.push(nameMismatch(index, item, call.name));
      continue;
    }
    if (block?.calls.some((open) => open.callId === item.callId)) {
      problems.push(duplicateResult(index, item));
      continue;
    }
    misplaced.push({ index, item });
  }
  closeBlock();

  // Second pass: results outside their block are orphans, extra copies, or out of order.
  const claimed = new Set<string>();
  for (const { index, item } of misplaced) {
    const owner = owners.get(item.callId);
    if (owner === undefined) {
      problems.push({
        index,
        id: item.id,
        kind: 'orphan_result',
        message: `tool result answers call '${item.callId}', which no assistant item made`,
      });
    } else if (answeredInPlace.has(item.callId) || claimed.has(item.callId)) {
      problems.push(duplicateResult(index, item));
    } else {
      claimed.add(item.callId);
      problems.push({
        index,
        id: item.id,
        kind: 'result_out_of_order',
        message:
          index < owner.index
            ? `tool result for call '${item.callId}' comes before its call in item ${owner.index}`
            : `tool result for call '${item.callId}' is not in the block of results directly after its assistant item ${owner.index}`,
      });
      if (item.toolName !== owner.name) problems.push(nameMismatch(index, item, owner.name));
    }
  }
  for (const { index, item, call } of unanswered) {
    if (claimed.has(call.callId)) continue;
    problems.push({
      index,
      id: item.id,
      kind: 'unanswered_call',
      message: `tool call '${call.callId}' (${call.name}) has no result`,
    });
  }
  return problems;
}

function duplicateResult(index: number, item: ToolResultItem): ProtocolProblem {
  return {
    index,
    id: item.id,
    kind: 'duplicate_result',
    message: `call '${item.callId}' already has a result; this one is extra`,
  };
}

function nameMismatch(index: number, item: ToolResultItem, callName: string): ProtocolProblem {
  return {
    index,
    id: item.id,
    kind: 'tool_name_mismatch',
    message: `tool result names tool '${item.toolName}' but call '${item.callId}' was to '${callName}'`,
  };
}
