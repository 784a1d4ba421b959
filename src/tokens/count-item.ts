import { ProtocolError } from '../errors/protocol-error.js';
import { isSendableName } from '../transcript/chat/names.js';
import { fencedContextText, isFencedContext } from '../transcript/chat/summary-message.js';
import { checkItem } from '../transcript/check-item.js';
import type {
  AssistantItem,
  Item,
  ProtocolProblem,
  UserContentPart,
  UserItem,
} from '../transcript/types.js';
import {
  type ChatRole,
  IMAGE_TOKENS,
  ITEM_ROLES,
  MESSAGE_OVERHEAD_TOKENS,
  NAME_OVERHEAD_TOKENS,
  TOOL_CALL_OVERHEAD_TOKENS,
} from './message-overhead.js';
import { knownPartCount, type PartCounts } from './part-counts.js';

export interface ItemCountingRules {
  readonly countText: (text: string) => number;
  readonly roleTokens: Readonly<Record<ChatRole, number>>;
}

/**
 * How an item's texts are counted: `known` holds counts of the item it was copied from (and of
 * earlier copies of that item), reused for texts that are unchanged; `record` receives this
 * item's counts.
 */
export interface ItemParts {
  readonly known?: readonly (PartCounts | undefined)[];
  readonly record?: PartCounts | undefined;
}

/**
 * Tokens one item costs as a chat message, uncached, of an item `assertCountableItem` let
 * through. A count is a sum over the item's texts (each counted alone) plus fixed overheads, which is
 * why a copy's unchanged texts can keep their counts.
 */
export function countItemTokens({
  item,
  rules,
  parts = {},
}: {
  readonly item: Item;
  readonly rules: ItemCountingRules;
  readonly parts?: ItemParts;
}): number {
  const { known, record } = parts;
  const part = (key: string, value: unknown, count: () => number): number => {
    const tokens = knownPartCount(known, key, value) ?? count();
    record?.push(key, value, tokens);
    return tokens;
  };
  const text = (value: string, key?: string): number =>
    key === undefined ? rules.countText(value) : part(key, value, () => rules.countText(value));
  const name = (value: string | undefined, key?: string): number =>
    value === undefined ? 0 : text(value, key) + NAME_OVERHEAD_TOKENS;
  if (item.kind === 'context' && isFencedContext(item)) {
    // Sent as a user message holding the fenced text (see `fencedContextText`), without a name.
    return MESSAGE_OVERHEAD_TOKENS + rules.roleTokens.user + text(fencedContextText(item), 'text');
  }
  const message = MESSAGE_OVERHEAD_TOKENS + rules.roleTokens[ITEM_ROLES[item.kind]];

  switch (item.kind) {
    case 'user':
      return message + name(item.name, 'name') + countUserContent({ item, text });
    case 'assistant':
      return (
        message +
        name(item.name, 'name') +
        (item.text === undefined ? 0 : text(item.text, 'text')) +
        countReasoning({ item, text, part }) +
        countToolCalls({ item, text })
      );
    case 'toolResult':
      return message + text(item.content, 'content');
    case 'context':
      // A context tag such as `loopkeeper:compaction_summary` is not a name OpenAI accepts, so
      // toChatMessages leaves it out of the request (unless told to keep it): it costs nothing.
      return (
        message +
        (typeof item.name === 'string' &&
        !isSendableName(item.name) &&
        item.chatShape?.keepName !== true
          ? 0
          : name(item.name, 'name')) +
        text(item.text, 'text')
      );
  }
}

/** Counts a text field; with a `key`, through the item's part counts. */
type FieldCounter = (value: string, key?: string) => number;
type PartCounter = (key: string, value: unknown, count: () => number) => number;

function countUserContent({ item, text }: { item: UserItem; text: FieldCounter }): number {
  if (typeof item.content === 'string') return text(item.content, 'content');
  let tokens = 0;
  for (const part of item.content as readonly UserContentPart[]) {
    tokens +=
      part.type === 'image'
        ? (IMAGE_TOKENS[part.detail ?? 'auto'] ?? IMAGE_TOKENS.auto)
        : text(part.text);
  }
  return tokens;
}

function countReasoning({
  item,
  text,
  part,
}: {
  item: AssistantItem;
  text: FieldCounter;
  part: PartCounter;
}): number {
  const texts = (item.reasoning ?? []).map((reasoning) => reasoning.text);
  // Sent as one `reasoning_content` string, parts joined by a blank line.
  return texts.length === 0 ? 0 : part('reasoning', item.reasoning, () => text(texts.join('\n\n')));
}

function countToolCalls({ item, text }: { item: AssistantItem; text: FieldCounter }): number {
  let tokens = 0;
  for (const call of item.toolCalls ?? []) {
    // Keyed by call id, so a copy that dropped some calls still finds the others' counts.
    const key = `call ${call.id}`;
    tokens +=
      TOOL_CALL_OVERHEAD_TOKENS +
      text(call.name, `${key} name`) +
      text(call.arguments, `${key} arguments`);
  }
  return tokens;
}

/**
 * Items reach the counter from hosts and stores: refuse anything that is not one (by
 * `ItemSchema`), so counting may rely on every field's type.
 */
export function assertCountableItem(item: unknown, index: number): asserts item is Item {
  const problems = checkItem(item, index);
  if (problems.length === 0) return;
  const message = (problem: ProtocolProblem) => `cannot count tokens: ${problem.message}`;
  throw new ProtocolError({
    problems: problems.map((problem) => ({ ...problem, message: message(problem) })),
  });
}
