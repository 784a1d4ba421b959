import type { TokenCounter } from '../../tokens/types.js';
import { sliceText } from '../../transcript/code-points.js';
import type { Item } from '../../transcript/types.js';

export interface TruncateTextOptions {
  readonly text: string;
  readonly maxTokens: number;
  readonly tokens: TokenCounter;
}

/** The longest start (or end) of `text` within `maxTokens`, found by shrinking towards the token ratio. */
function sliceWithin({
  text,
  maxTokens,
  tokens,
  from,
}: TruncateTextOptions & { readonly from: 'start' | 'end' }): string {
  if (maxTokens <= 0) return '';
  // Tokens almost never hold more than ~8 characters, so this first cut rarely needs a recount.
  let length = Math.min(text.length, maxTokens * 8);
  for (;;) {
    const candidate =
      from === 'start' ? sliceText(text, 0, length) : sliceText(text, text.length - length);
    const count = tokens.countText(candidate);
    if (count <= maxTokens) return candidate;
    length = Math.min(length - 1, Math.floor((length * maxTokens) / count));
    if (length <= 0) return '';
  }
}

const shortCutMark = '[… cut for the summary …]';

/** The note that stands where the middle of an item was cut for the summary. */
function summaryCutNote(omitted: number): string {
  return `[… about ${omitted} tokens left out of this item for the summary …]`;
}

/**
 * A cut mark a clip left in a text: the note of `truncateTextToTokens` and every note built on
 * the same frame (`[… about N tokens … …]`). A text that holds one is cut around it, never through it.
 */
const cutMarkPattern = /\[… about (\d+) tokens [^[\]]*…\]/;

/** `text` split around its cut mark, or undefined when it has none. */
function splitAtMark(
  text: string,
): { head: string; tail: string; omitted: number; mark: string } | undefined {
  const match = cutMarkPattern.exec(text);
  if (match === null) return undefined;
  return {
    head: text.slice(0, match.index).replace(/\s+$/, ''),
    tail: text.slice(match.index + match[0].length).replace(/^\s+/, ''),
    omitted: Number(match[1]),
    mark: match[0],
  };
}

export interface TruncateTextToTokensOptions extends TruncateTextOptions {
  /** The token count of `text` when the caller already knows it (counting is linear in size). */
  readonly textTokens?: number;
  /** The note put where the middle was cut, given the tokens left out; it must keep the `[… about N tokens … …]` frame. */
  readonly note?: (omitted: number) => string;
  /** What joins head, note and tail: a line break by default, a space for a one-line text. */
  readonly separator?: string;
}

/**
 * `text` cut to about `maxTokens`, keeping its head and its tail (a failure usually shows at the
 * end of an output) with a note in between saying how much was left out. A text cut before is
 * cut again around its note, whose count grows, so a text carries one note however often it is
 * cut, and no cut ever lands inside a note. Cuts fall between code points.
 */
export function truncateTextToTokens({
  text,
  maxTokens,
  tokens,
  textTokens,
  note = summaryCutNote,
  separator = '\n',
}: TruncateTextToTokensOptions): string {
  const total = textTokens ?? tokens.countText(text);
  if (total <= maxTokens) return text;
  const noteTokens = 24;
  // Too little room for a head, a tail and the note: a bare mark says something was here.
  if (maxTokens < noteTokens + 8) return shortCutMark;
  const room = Math.max(0, maxTokens - noteTokens);
  const earlier = splitAtMark(text);
  if (earlier !== undefined) {
    const headSize = tokens.countText(earlier.head);
    const tailSize = tokens.countText(earlier.tail);
    // The head gets two thirds of the room, or all it had; the tail the rest.
    const headRoom = Math.min(headSize, Math.ceil((room * 2) / 3));
    const head = sliceWithin({ text: earlier.head, maxTokens: headRoom, tokens, from: 'start' });
    const tail = sliceWithin({
      text: earlier.tail,
      maxTokens: Math.max(0, room - tokens.countText(head)),
      tokens,
      from: 'end',
    });
    const omitted =
      earlier.omitted + headSize - tokens.countText(head) + tailSize - tokens.countText(tail);
    return `${head}${separator}${note(omitted)}${separator}${tail}`;
  }
  const headTokens = Math.ceil((room * 2) / 3);
  const head = sliceWithin({ text, maxTokens: headTokens, tokens, from: 'start' });
  const rest = text.slice(head.length);
  const tail = sliceWithin({ text: rest, maxTokens: room - headTokens, tokens, from: 'end' });
  const omitted = Math.max(0, total - tokens.countText(head) - tokens.countText(tail));
  return `${head}${separator}${note(omitted)}${separator}${tail}`;
}

/** Marks the id of an item copy cut down for summarizer input. */
export const TRUNCATED_ID_SUFFIX = '#truncated';

/** Fields this small are left as they are: cutting them would save nothing. */
const minimumFieldTokens = 12;

type TextField = 'content' | 'text' | 'arguments' | 'reasoning';

function largestField(
  item: Item,
  tokens: TokenCounter,
): { field: TextField; index: number; text: string; tokens: number } | undefined {
  const candidates: { field: TextField; index: number; text: string }[] = [];
  if (item.kind === 'toolResult')
    candidates.push({ field: 'content', index: 0, text: item.content });
  if (item.kind === 'context') candidates.push({ field: 'text', index: 0, text: item.text });
  if (item.kind === 'user') {
    if (typeof item.content === 'string') {
      candidates.push({ field: 'content', index: 0, text: item.content });
    } else {
      item.content.forEach((part, index) => {
        if (part.type === 'text') candidates.push({ field: 'content', index, text: part.text });
      });
    }
  }
  if (item.kind === 'assistant') {
    if (item.text !== undefined) candidates.push({ field: 'text', index: 0, text: item.text });
    item.reasoning?.forEach((part, index) => {
      candidates.push({ field: 'reasoning', index, text: part.text });
    });
    item.toolCalls?.forEach((call, index) => {
      candidates.push({ field: 'arguments', index, text: call.arguments });
    });
  }
  // Fields already down to the bare mark cannot shrink further.
  return candidates
    .filter((candidate) => candidate.text !== shortCutMark)
    .map((candidate) => ({ ...candidate, tokens: tokens.countText(candidate.text) }))
    .filter((candidate) => candidate.tokens > minimumFieldTokens)
    .sort((left, right) => right.tokens - left.tokens)[0];
}

function withField(item: Item, field: TextField, index: number, text: string): Item {
  switch (item.kind) {
    case 'toolResult':
      return { ...item, content: text };
    case 'context':
      return { ...item, text };
    case 'user':
      return typeof item.content === 'string'
        ? { ...item, content: text }
        : {
            ...item,
            content: item.content.map((part, at) =>
              at === index && part.type === 'text' ? { ...part, text } : part,
            ),
          };
    case 'assistant':
      if (field === 'text') return { ...item, text };
      if (field === 'reasoning') {
        return {
          ...item,
          reasoning: (item.reasoning ?? []).map((part, at) => (at === index ? { text } : part)),
        };
      }
      return {
        ...item,
        toolCalls: (item.toolCalls ?? []).map((call, at) =>
          at === index ? { ...call, arguments: text } : call,
        ),
      };
  }
}

export interface ShrinkItemOptions {
  readonly item: Item;
  /** The most tokens the item may take as rendered by `measure`. */
  readonly maxTokens: number;
  readonly tokens: TokenCounter;
  /** Tokens of the item as it would be rendered for the summarizer. */
  readonly measure: (item: Item) => number;
}

/**
 * A copy of `item` for summarizer input only, with its largest texts cut (head and tail kept,
 * a note in between) until it measures within `maxTokens`; undefined when even cut to the bone
 * it does not fit. The copy is never put into a transcript; its id gets a `#truncated` suffix
 * because ids name immutable content (token counts are cached by id).
 */
export function shrinkItemForSummary({
  item,
  maxTokens,
  tokens,
  measure,
}: ShrinkItemOptions): Item | undefined {
  let current = item;
  for (let attempt = 0; attempt < 64; attempt += 1) {
    const size = measure(current);
    if (size <= maxTokens) return current;
    const largest = largestField(current, tokens);
    if (largest === undefined) return undefined;
    const fieldTokens = largest.tokens;
    // Rendering adds per-line quoting, so the field shrinks by the ratio rather than the excess.
    const target = Math.min(fieldTokens - 1, Math.floor((fieldTokens * maxTokens) / size) - 32);
    const changed = withField(
      current,
      largest.field,
      largest.index,
      truncateTextToTokens({
        text: largest.text,
        maxTokens: target,
        tokens,
        textTokens: fieldTokens,
      }),
    );
    current = changed.id.endsWith(TRUNCATED_ID_SUFFIX)
      ? changed
      : { ...changed, id: `${changed.id}${TRUNCATED_ID_SUFFIX}` };
  }
  return measure(current) <= maxTokens ? current : undefined;
}
