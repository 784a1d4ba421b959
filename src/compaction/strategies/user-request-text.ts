import type { Item } from '../../transcript/types.js';

/** The text of a user item (text parts joined); empty for any other item. */
export function userRequestText(item: Item): string {
  if (item.kind !== 'user') return '';
  if (typeof item.content === 'string') return item.content;
  return item.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}
