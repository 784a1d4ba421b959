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
    problems.invalid(
      `content must be a string or an array of text parts (got ${describeValue(content)})`,
    );
    return undefined;
  }
  const texts: string[] = [];
  content.forEach((part: unknown, partIndex) => {
    const where = `content[${partIndex}]`;
    if (!isRecord(part)) problems.invalid(`${where} is not an object (got ${describeValue(part)})`);
    else if (part['type'] !== 'text') {
      problems.unsupported(
        `${where} has type ${describeValue(part['type'])}; only text parts are supported here`,
      );
    } else if (typeof part['text'] !== 'string') {
      problems.invalid(`${where}.text must be a string (got ${describeValue(part['text'])})`);
    } else {
      problems.onlyFields(part, ['type', 'text'], `${where}.`);
      texts.push(part['text']);
    }
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
    problems.invalid(
      `content must be a string or an array of parts (got ${describeValue(content)})`,
    );
    return undefined;
  }
  const parts: UserContentPart[] = [];
  content.forEach((part: unknown, partIndex) => {
    const where = `content[${partIndex}]`;
    if (!isRecord(part)) {
      problems.invalid(`${where} is not an object (got ${describeValue(part)})`);
      return;
    }
    if (part['type'] === 'text') {
      if (typeof part['text'] !== 'string') {
        problems.invalid(`${where}.text must be a string (got ${describeValue(part['text'])})`);
        return;
      }
      problems.onlyFields(part, ['type', 'text'], `${where}.`);
      parts.push({ type: 'text', text: part['text'] });
      return;
    }
    if (part['type'] === 'image_url') {
      const image = readImage(part, where, problems);
      if (image !== undefined) parts.push(image);
      return;
    }
    problems.unsupported(
      `${where} has type ${describeValue(part['type'])}; only text and image_url parts are supported`,
    );
  });
  return parts;
}

function readImage(
  part: Record<string, unknown>,
  where: string,
  problems: MessageProblems,
): UserContentPart | undefined {
  problems.onlyFields(part, ['type', 'image_url'], `${where}.`);
  const image = part['image_url'];
  if (!isRecord(image) || typeof image['url'] !== 'string') {
    problems.invalid(`${where}.image_url must be an object with a string url`);
    return undefined;
  }
  problems.onlyFields(image, ['url', 'detail'], `${where}.image_url.`);
  const detail = image['detail'];
  if (detail === undefined) return { type: 'image', url: image['url'] };
  if (detail === 'auto' || detail === 'low' || detail === 'high') {
    return { type: 'image', url: image['url'], detail };
  }
  problems.invalid(`${where}.image_url.detail must be 'auto', 'low' or 'high'`);
  return undefined;
}
