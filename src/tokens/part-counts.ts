/**
 * Token counts of the texts of one item, as flat triples `[key, value, tokens]`: `value` is
 * what was counted (a string, or the reasoning parts joined for counting), so a count is only
 * reused for an identical value and stays exact. A flat array keeps the record small: one is
 * kept per counted assistant item with reasoning or tool calls, and per counted copy.
 */
export type PartCounts = unknown[];

/** The recorded count of `key` when its value is the same as `value`. */
export function knownPartCount(
  known: readonly (PartCounts | undefined)[] | undefined,
  key: string,
  value: unknown,
): number | undefined {
  for (const parts of known ?? []) {
    if (parts === undefined) continue;
    for (let offset = 0; offset < parts.length; offset += 3) {
      if (parts[offset] === key && samePart(parts[offset + 1], value)) {
        return parts[offset + 2] as number;
      }
    }
  }
  return undefined;
}

function samePart(recorded: unknown, value: unknown): boolean {
  if (recorded === value) return true;
  if (!Array.isArray(recorded) || !Array.isArray(value) || recorded.length !== value.length) {
    return false;
  }
  return recorded.every(
    (part, index) =>
      (part as { text?: unknown }).text === (value[index] as { text?: unknown } | undefined)?.text,
  );
}
