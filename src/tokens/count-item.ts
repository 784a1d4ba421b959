import { ProtocolError } from '../errors/protocol-error.js';
import { isSendableName } from '../transcript/chat/names.js';
import { fencedContextText, isFencedContext } from '../transcript/chat/summary-message.js';
import type { AssistantItem, Item, UserContentPart, UserItem } from '../transcript/types.js';
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
 * Tokens one item costs as a chat message, uncached. `index` only names the item in errors.
 * A count is a sum over the item's texts (each counted alone) plus fixed overheads, which is
 * why a copy's unchanged texts can keep their counts.
 */
export function countItemTokens({
  item,
  index = 0,
  rules,
  parts = {},
}: {
  readonly item: Item;
  readonly index?: number;
  readonly rules: ItemCountingRules;
  readonly parts?: ItemParts;
}): number {
  assertCountableItem(item, index);
  const { known, record } = parts;
  const part = (key: string, value: unknown, count: () => number): number => {
    const tokens = knownPartCount(known, key, value) ?? count();
    record?.push(key, value, tokens);
    return tokens;
  };
  const text = (value: unknown, field: string, key?: string): number => {
    if (typeof value !== 'string') throw invalidItem({ item, index, field, value });
    return key === undefined
      ? rules.countText(value)
      : part(key, value, () => rules.countText(value));
  };
  const name = (value: unknown, key?: string): number =>
    value === undefined ? 0 : text(value, 'name', key) + NAME_OVERHEAD_TOKENS;
  if (item.kind === 'context' && isFencedContext(item)) {
    // Sent as a user message holding the fenced text (see `fencedContextText`), without a name.
    return (
      MESSAGE_OVERHEAD_TOKENS +
      rules.roleTokens.user +
      text(fencedContextText(item), 'text', 'text')
    );
  }
  const message = MESSAGE_OVERHEAD_TOKENS + rules.roleTokens[ITEM_ROLES[item.kind]];

  switch (item.kind) {
    case 'user':
      return message + name(item.name, 'name') + countUserContent({ item, text });
    case 'assistant':
      return (
        message +
        name(item.name, 'name') +
        (item.text === undefined ? 0 : text(item.text, 'text', 'text')) +
        countReasoning({ item, text, part, index }) +
        countToolCalls({ item, text, index })
      );
    case 'toolResult':
      return message + text(item.content, 'content', 'content');
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
        text(item.text, 'text', 'text')
      );
  }
}

/** Counts a text field; with a `key`, through the item's part counts. */
type FieldCounter = (value: unknown, field: string, key?: string) => number;
type PartCounter = (key: string, value: unknown, count: () => number) => number;

function countUserContent({ item, text }: { item: UserItem; text: FieldCounter }): number {
  const content: unknown = item.content;
  if (!Array.isArray(content)) return text(content, 'content', 'content');
  let tokens = 0;
  for (const [partIndex, part] of (content as readonly UserContentPart[]).entries()) {
    const field = `content[${partIndex}]`;
    if (part?.type === 'image') {
      tokens += IMAGE_TOKENS[part.detail ?? 'auto'] ?? IMAGE_TOKENS.auto;
    } else {
      tokens += text(part?.text, `${field}.text`);
    }
  }
  return tokens;
}

function countReasoning({
  item,
  text,
  part,
  index,
}: {
  item: AssistantItem;
  text: FieldCounter;
  part: PartCounter;
  index: number;
}): number {
  if (item.reasoning === undefined) return 0;
  if (!Array.isArray(item.reasoning)) {
    throw invalidItem({ item, index, field: 'reasoning', value: item.reasoning });
  }
  const texts = item.reasoning.map((part: unknown, partIndex: number) => {
    const value = (part as { text?: unknown } | undefined)?.text;
    if (typeof value !== 'string') {
      throw invalidItem({ item, index, field: `reasoning[${partIndex}].text`, value });
    }
    return value;
  });
  // Sent as one `reasoning_content` string, parts joined by a blank line.
  return texts.length === 0
    ? 0
    : part('reasoning', item.reasoning, () => text(texts.join('\n\n'), 'reasoning'));
}

function countToolCalls({
  item,
  text,
  index,
}: {
  item: AssistantItem;
  text: FieldCounter;
  index: number;
}): number {
  if (item.toolCalls === undefined) return 0;
  if (!Array.isArray(item.toolCalls)) {
    throw invalidItem({ item, index, field: 'toolCalls', value: item.toolCalls });
  }
  let tokens = 0;
  for (const [callIndex, call] of item.toolCalls.entries()) {
    // Keyed by call id, so a copy that dropped some calls still finds the others' counts.
    const key = typeof call?.id === 'string' ? `call ${call.id}` : undefined;
    tokens +=
      TOOL_CALL_OVERHEAD_TOKENS +
      text(call?.name, `toolCalls[${callIndex}].name`, key === undefined ? key : `${key} name`) +
      text(
        call?.arguments,
        `toolCalls[${callIndex}].arguments`,
        key === undefined ? key : `${key} arguments`,
      );
  }
  return tokens;
}

/** Items reach the counter from hosts and stores: refuse anything that is not one. */
export function assertCountableItem(item: unknown, index: number): asserts item is Item {
  if (
    typeof item !== 'object' ||
    item === null ||
    typeof (item as { id?: unknown }).id !== 'string' ||
    !Object.hasOwn(ITEM_ROLES, (item as { kind?: unknown }).kind as string)
  ) {
    throw invalidItem({ item, index });
  }
}

function invalidItem({
  item,
  index,
  field,
  value,
}: {
  item: unknown;
  index: number;
  field?: string;
  value?: unknown;
}): ProtocolError {
  const id = readId(item);
  const message =
    field === undefined
      ? `cannot count tokens of ${describe(item)}: expected an item with a string id and a kind of user, assistant, toolResult or context`
      : `cannot count tokens: ${field} must be a string, got ${describe(value)}`;
  return new ProtocolError({
    problems: [{ index, ...(id === undefined ? {} : { id }), kind: 'invalid_item', message }],
  });
}

function readId(item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null || !('id' in item)) return undefined;
  return typeof item.id === 'string' ? item.id : undefined;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') {
    return 'kind' in value ? `kind ${JSON.stringify(value.kind)}` : 'an object without a kind';
  }
  return typeof value;
}
