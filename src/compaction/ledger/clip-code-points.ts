/**
 * `text` cut to at most `limit` code points with an ellipsis at the end, never splitting a
 * surrogate pair: the cut counts code points, not UTF-16 units.
 */
export function clipCodePoints(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const points = Array.from(text);
  if (points.length <= limit) return text;
  return `${points.slice(0, Math.max(0, limit - 1)).join('')}…`;
}
