import { describeValue, isRecord } from '../describe-value.js';
import type { UserContentPart } from '../types.js';
import type { MessageProblems } from './message-problems.js';

export interface ReadText {
  readonly text: string;
  /** Set when the text arrived as an array of text parts. */
  readonly partLengths?: readonly number[];
}

/**
 * Content that must be text: a string or an array of text parts. Parts are joined without a
 * separator, which is how providers read them, and their lengths are kept for the way back.
 */
export function readTextContent(content: unknown, problems: MessageProblems): ReadText | undefined {
  if (typeof content === 'string') return { text: content };
  if (!Array.isArray(content)) {
    const got = describeValue(content);
    problems.invalid(`content must be a string or an array of text parts (got ${got})`);
    return undefined;
  }
  const texts: string[] = [];
  content.forEach((part: unknown, partIndex) => {
    const where = `content[${partIndex}]`;
    if (!isRecord(part)) {
      problems.invalid(`${where} is not an object (got ${describeValue(part)})`);
      return;
    }
    const { type } = part;
    if (type !== 'text') {
      problems.unsupported(
        `${where} has type ${describeValue(type)}; only text parts are supported here`,
      );
      return;
    }
    const text = readTextPart(part, where, problems);
    if (text !== undefined) texts.push(text);
  });
  return { text: texts.join(''), partLengths: texts.map((text) => text.length) };
}

/** A user message's content: a string, or text and image parts. */
export function readUserContent(
  content: unknown,
  problems: MessageProblems,
): string | UserContentPart[] | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) {
    const got = describeValue(content);
    problems.invalid(`content must be a string or an array of parts (got ${got})`);
    return undefined;
  }
  const parts: UserContentPart[] = [];
  content.forEach((part: unknown, partIndex) => {
    const where = `content[${partIndex}]`;
    if (!isRecord(part)) {
      problems.invalid(`${where} is not an object (got ${describeValue(part)})`);
      return;
    }
    const { type } = part;
    if (type === 'text') {
      const text = readTextPart(part, where, problems);
      if (text !== undefined) parts.push({ type: 'text', text });
    } else if (type === 'image_url') {
      const image = readImagePart(part, where, problems);
      if (image !== undefined) parts.push(image);
    } else {
      const got = describeValue(type);
      problems.unsupported(`${where} has type ${got}; only text and image_url parts are supported`);
    }
  });
  return parts;
}

function readTextPart(
  part: Record<string, unknown>,
  where: string,
  problems: MessageProblems,
): string | undefined {
  problems.onlyFields(part, ['type', 'text'], `${where}.`);
  const { text } = part;
  if (typeof text === 'string') return text;
  problems.invalid(`${where}.text must be a string (got ${describeValue(text)})`);
  return undefined;
}

function readImagePart(
  part: Record<string, unknown>,
  where: string,
  problems: MessageProblems,
): UserContentPart | undefined {
  problems.onlyFields(part, ['type', 'image_url'], `${where}.`);
  const { image_url: image } = part;
  if (!isRecord(image)) {
    problems.invalid(`${where}.image_url must be an object (got ${describeValue(image)})`);
    return undefined;
  }
  problems.onlyFields(image, ['url', 'detail'], `${where}.image_url.`);
  const { url, detail } = image;
  if (typeof url !== 'string') {
    problems.invalid(`${where}.image_url.url must be a string (got ${describeValue(url)})`);
    return undefined;
  }
  if (detail === undefined) return { type: 'image', url };
  if (detail === 'auto' || detail === 'low' || detail === 'high')
    return { type: 'image', url, detail };
  problems.invalid(`${where}.image_url.detail must be 'auto', 'low' or 'high'`);
  return undefined;
}
