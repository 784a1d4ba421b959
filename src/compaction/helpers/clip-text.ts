import { toolOutputFacts } from './tool-output-placeholder.js';

/** Ids of clipped copies start with this, so a clipped output is never clipped again. */
export const CLIPPED_ID_PREFIX = 'clipped';

/** Cut `text` at a line end at or before `at` when one is near; else at `at`. */
function headUntil(text: string, at: number): string {
  const newline = text.lastIndexOf('\n', at);
  return newline > at / 2 ? text.slice(0, newline) : text.slice(0, at);
}

/** Cut `text` at a line start at or after `length - keep` when one is near; else there. */
function tailFrom(text: string, keep: number): string {
  const from = text.length - keep;
  const newline = text.indexOf('\n', from);
  return newline >= 0 && newline < from + keep / 2 ? text.slice(newline + 1) : text.slice(from);
}

/**
 * `content` cut to about `characters`: its head (40%) and tail (25%) verbatim, where an
 * output's command echo and its final status usually are, and between them a note of what was
 * cut with the paths, error lines and identifiers found in the cut part (the rest), and
 * `advice` on how to see the rest.
 */
export function clipText(
  content: string,
  characters: number,
  advice = 'Re-run the tool with a narrower request to see them.',
): string {
  const keep = Math.max(0, Math.floor(characters));
  const head = headUntil(content, Math.floor(keep * 0.4));
  const tail = tailFrom(content, Math.floor(keep * 0.25));
  const middle = content.slice(head.length, content.length - tail.length);
  const lines = middle.split('\n').length - 1;
  const size =
    lines > 0 ? `${lines} lines, ${middle.length} characters` : `${middle.length} characters`;
  return `${head}\n[… ${size} cut by compaction.${toolOutputFacts(middle, Math.min(middle.length / 6, keep * 0.4))} ${advice}]\n${tail}`;
}
