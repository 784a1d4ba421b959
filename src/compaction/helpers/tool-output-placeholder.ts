import type { TokenCounter } from '../../tokens/types.js';
import { sliceText } from '../../transcript/code-points.js';
import type { Item, ToolResultItem } from '../../transcript/types.js';
import {
  findFilePaths,
  findIdentifiers,
  findUrls,
  looksLikeError,
} from '../summarizers/extract-patterns.js';
import { deriveItem } from './derived-item.js';

/** What a placeholder may say about the tool output it replaces. */
export interface PrunedToolOutput {
  readonly toolName: string;
  readonly callId: string;
  readonly isError: boolean;
  /** Tokens the result took in the prompt (its message overhead included). */
  readonly tokens: number;
  readonly characters: number;
  /** The output itself, for placeholders that quote what matters in it. */
  readonly content: string;
}

/** Placeholder text, or a function writing it from the facts of the pruned output. */
export type ToolOutputPlaceholder = string | ((output: PrunedToolOutput) => string);

/** Ids of pruned copies start with this, which is how a result already pruned is recognised. */
export const PRUNED_ID_PREFIX = 'pruned';

// Caps on what a placeholder quotes, so it stays a small fraction of the output it replaces.
const maxPaths = 12;
const maxErrorLines = 4;
const maxErrorLineLength = 200;
const maxIdentifiers = 20;
/**
 * Room the error lines of a pruned output always have, beyond its share of the output's length:
 * the capped list of them, whole. An error is what a reader can least afford to lose, and a short
 * failed output is often nothing but its error line, more than a sixth of it.
 */
const ERROR_LINES_ROOM = maxErrorLines * (maxErrorLineLength + 4) + 32;

/** `values` as a labelled list within `room` characters, saying how many did not fit. */
function listed(label: string, values: readonly string[], limit: number, room: number): string {
  const shown: string[] = [];
  let length = label.length + 16;
  for (const value of values.slice(0, limit)) {
    if (length + value.length + 2 > room) break;
    shown.push(value);
    length += value.length + 2;
  }
  if (shown.length === 0) return '';
  const more = values.length > shown.length ? ` (+${values.length - shown.length} more)` : '';
  return ` ${label}: ${shown.join(', ')}${more}.`;
}

/**
 * The facts a reader of a pruned output needs to go on without re-running the tool: the paths
 * and URLs it named, its error lines and the identifiers in it, each list capped (unless
 * `uncapped`: then only the room limits them), all of it within `maxCharacters` (default a sixth
 * of the output's length, so pruning always saves most of it). The error lines, listed first,
 * may take up to `errorCharacters` when that is more than `maxCharacters`; what they take counts
 * against the room of the others. Each error line is quoted as it reads, so it can be found
 * verbatim.
 */
export function toolOutputFacts(
  content: string,
  maxCharacters = content.length / 6,
  uncapped = false,
  errorCharacters = 0,
): string {
  const errors = content
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '' && !/^\d+[:|]/.test(line) && looksLikeError(line))
    .map((line) =>
      line.length > maxErrorLineLength ? `${sliceText(line, 0, maxErrorLineLength - 1)}…` : line,
    );
  const paths = [...new Set([...findUrls(content), ...findFilePaths(content)])];
  let room = Math.floor(maxCharacters);
  const errorList = [...new Set(errors)].map((line) => `"${line}"`);
  const errorPart = listed(
    'Errors',
    errorList,
    uncapped ? errorList.length : maxErrorLines,
    Math.max(room, Math.floor(errorCharacters)),
  );
  room = Math.max(0, room - errorPart.length);
  const parts = [errorPart];
  for (const [label, values, limit] of [
    ['Paths', paths, maxPaths],
    ['Identifiers', findIdentifiers(content), maxIdentifiers],
  ] as const) {
    const part = listed(label, values, uncapped ? values.length : limit, room);
    room -= part.length;
    parts.push(part);
  }
  return parts.join('');
}

/**
 * The placeholder `pruneToolResults` writes in place of a pruned tool output by default: the
 * tool's name, how large the output was, a few facts it held (its error lines, quoted whole,
 * its paths, URLs and identifiers), and that the tool can be re-run.
 *
 * @example
 * ```ts
 * import { defaultToolOutputPlaceholder } from 'loopkeeper/compaction';
 * import { pruneToolResults } from 'loopkeeper';
 *
 * // Extend the default text instead of replacing it.
 * const strategy = pruneToolResults({
 *   placeholder: (output) =>
 *     `${defaultToolOutputPlaceholder(output)} (pruned at ${new Date().toISOString()})`,
 * });
 * ```
 */
export function defaultToolOutputPlaceholder({
  toolName,
  tokens,
  characters,
  isError,
  content,
}: PrunedToolOutput) {
  // The error lines have room of their own (ERROR_LINES_ROOM), so an output that is mostly its
  // error lines gets a placeholder about its own size, and `pruneToolOutput` leaves it whole.
  return `[${isError ? 'Failed output' : 'Output'} of ${toolName} pruned: ${tokens} tokens, ${characters} characters.${toolOutputFacts(content, content.length / 6, false, ERROR_LINES_ROOM)} Re-run the tool to see all of it.]`;
}

/**
 * Whether a result is a pruned copy made by a strategy. Pruned copies carry the prefix in their
 * id (ids survive the session log's replacement view), so a custom placeholder text needs no
 * marker of its own and pruning stays idempotent.
 */
export function isPrunedToolResult(item: ToolResultItem): boolean {
  return item.id.startsWith(`${PRUNED_ID_PREFIX}_`);
}

/**
 * The latest pruned copy made of each output, with what it was made from. The default
 * placeholder and a fixed text are pure functions of the output and its size, so a copy made
 * for the same size is reused as it is (same id, its count cached): writing the default scans
 * the whole output, which a pruning skipped for too small a saving would otherwise repeat at
 * every step. A custom function is called every time, and its copy reused only when it wrote
 * the same text.
 */
const prunedCopies = new WeakMap<
  ToolResultItem,
  {
    readonly placeholder: ToolOutputPlaceholder;
    readonly tokens: number;
    readonly item: ToolResultItem;
  }
>();

function prunedCopy(
  item: ToolResultItem,
  placeholder: ToolOutputPlaceholder,
  tokens: number,
): ToolResultItem {
  const made = prunedCopies.get(item);
  const pure = typeof placeholder === 'string' || placeholder === defaultToolOutputPlaceholder;
  if (made !== undefined && pure && made.placeholder === placeholder && made.tokens === tokens) {
    return made.item;
  }
  const content =
    typeof placeholder === 'string'
      ? placeholder
      : placeholder({
          toolName: item.toolName,
          callId: item.callId,
          isError: item.isError,
          tokens,
          characters: item.content.length,
          content: item.content,
        });
  if (made !== undefined && made.item.content === content) {
    if (made.placeholder !== placeholder || made.tokens !== tokens) {
      prunedCopies.set(item, { placeholder, tokens, item: made.item });
    }
    return made.item;
  }
  // The chat spelling of the old output (its text-part split) does not describe the placeholder.
  const { chatShape: _stale, ...rest } = item;
  const copy = deriveItem(item, { ...rest, content }, PRUNED_ID_PREFIX);
  prunedCopies.set(item, { placeholder, tokens, item: copy });
  return copy;
}

/**
 * The least share of an output's tokens its pruned copy must save. Pruning trades the output for
 * room; a placeholder nearly as large as the output (the default one of an output that is mostly
 * its error lines, which the placeholder quotes whole) is not worth that trade.
 */
const MIN_SAVED_SHARE = 0.25;

/**
 * The pruned copy of a result and the tokens it saves, or undefined when it is already pruned
 * or the placeholder would save less than a quarter of the output.
 */
export function pruneToolOutput(
  item: ToolResultItem,
  placeholder: ToolOutputPlaceholder,
  tokens: TokenCounter,
): { readonly item: ToolResultItem; readonly saved: number } | undefined {
  if (isPrunedToolResult(item)) return undefined;
  // Per-item counts are cached, so sizing old outputs costs no tokenizing; only the short
  // placeholder is new text, counted once for as long as its copy is reused.
  const size = tokens.countItem(item);
  const pruned = prunedCopy(item, placeholder, size);
  const saved = size - tokens.countItem(pruned);
  return saved > 0 && saved >= size * MIN_SAVED_SHARE ? { item: pruned, saved } : undefined;
}

/**
 * Writes now the pruned copy `pruneToolOutput` would write later for each tool output of
 * `items` of at least `minOutputTokens`, and counts it, so a later pass finds placeholder and
 * count cached and only looks them up. Only a placeholder that is a pure function of the output
 * is prepared (a fixed text or the default): a custom function may say something else each time.
 */
export function preparePrunedCopies({
  items,
  tokens,
  placeholder,
  minOutputTokens,
}: {
  readonly items: Iterable<Item>;
  readonly tokens: TokenCounter;
  readonly placeholder: ToolOutputPlaceholder;
  readonly minOutputTokens: number;
}): void {
  if (typeof placeholder !== 'string' && placeholder !== defaultToolOutputPlaceholder) return;
  for (const item of items) {
    if (item.kind !== 'toolResult' || isPrunedToolResult(item)) continue;
    if (tokens.countItem(item) < minOutputTokens) continue;
    pruneToolOutput(item, placeholder, tokens);
  }
}
