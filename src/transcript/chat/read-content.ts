import type { ChatMessage } from '../../vocabulary/schemas/chat-message.js';
import type { UserContentPart } from '../types.js';

export interface ReadText {
  readonly text: string;
  /** Set when the text arrived as an array of text parts. */
  readonly partLengths?: readonly number[];
}

type TextContent = Extract<ChatMessage, { role: 'tool' }>['content'];
type UserContent = Extract<ChatMessage, { role: 'user' }>['content'];

/**
 * Content that must be text: a string or an array of text parts. Parts are joined without a
 * separator, which is how providers read them, and their lengths are kept for the way back.
 */
export function readTextContent(content: TextContent): ReadText {
  if (typeof content === 'string') return { text: content };
  return {
    text: content.map(({ text }) => text).join(''),
    partLengths: content.map(({ text }) => text.length),
  };
}

/** A user message's content: a string, or text and image parts. */
export function readUserContent(content: UserContent): string | UserContentPart[] {
  if (typeof content === 'string') return content;
  return content.map((part) => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    const { url, detail } = part.image_url;
    return { type: 'image', url, ...(detail === undefined ? {} : { detail }) };
  });
}
