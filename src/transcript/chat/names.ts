/**
 * OpenAI accepts a message `name` only of letters, digits, `_` and `-`, at most 64 long.
 * loopkeeper's own context tags (such as `loopkeeper:compaction_summary`) contain a colon on
 * purpose: they label items and are never sent as a name.
 */
export function isSendableName(name: string): boolean {
  return /^[A-Za-z0-9_-]{1,64}$/.test(name);
}
