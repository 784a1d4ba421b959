/**
 * Text cut by UTF-16 index can split a surrogate pair (an emoji, a rare CJK character) and
 * leave a lone surrogate, which is not valid Unicode: strict providers refuse the request, and
 * a logged item would poison every later request of the session. Every cut of user, tool or
 * model text goes through `sliceText`; text entering the session goes through `wellFormedText`.
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function isHigh(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLow(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Whether a cut before UTF-16 index `at` would fall between the two halves of a pair. */
function splitsPair(text: string, at: number): boolean {
  return (
    at > 0 && at < text.length && isHigh(text.charCodeAt(at - 1)) && isLow(text.charCodeAt(at))
  );
}

/**
 * `text.slice(start, end)` with both cuts moved to code-point boundaries: the start forward
 * and the end back past a split pair, so the result never holds half of one (and never grows).
 */
export function sliceText(text: string, start: number, end: number = text.length): string {
  const from = Math.max(0, Math.min(text.length, Math.floor(start)));
  const to = Math.max(from, Math.min(text.length, Math.floor(end)));
  const safeFrom = splitsPair(text, from) ? from + 1 : from;
  const safeTo = splitsPair(text, to) ? to - 1 : to;
  return safeTo <= safeFrom ? '' : text.slice(safeFrom, safeTo);
}

/** `text` with every lone surrogate replaced by U+FFFD; the same string when it has none. */
export function wellFormedText(text: string): string {
  return isWellFormed(text) ? text : text.replace(LONE_SURROGATE, '\uFFFD');
}

// Native since Node 20 (ES2024); the library's `lib` setting predates it.
const nativeIsWellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean })
  .isWellFormed;

function isWellFormed(text: string): boolean {
  if (nativeIsWellFormed !== undefined) return nativeIsWellFormed.call(text);
  LONE_SURROGATE.lastIndex = 0;
  return !LONE_SURROGATE.test(text);
}

/**
 * `value` (an event, an item, any JSON value) with every string made well formed. Returns the
 * same object when nothing changed, so the common case allocates nothing.
 */
export function wellFormedValue<T>(value: T): T {
  if (typeof value === 'string') return wellFormedText(value) as T;
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index += 1) {
      const entry: unknown = value[index];
      const fixed = wellFormedValue(entry);
      if (fixed !== entry) {
        copy ??= [...value];
        copy[index] = fixed;
      }
    }
    return (copy ?? value) as T;
  }
  let copy: Record<string, unknown> | undefined;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const entry = record[key];
    const fixed = wellFormedValue(entry);
    if (fixed !== entry) {
      copy ??= { ...record };
      copy[key] = fixed;
    }
  }
  return (copy ?? value) as T;
}
