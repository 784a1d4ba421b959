import { readFile } from 'node:fs/promises';
import { ConfigError } from '../../errors/config-error.js';
import { fromChatMessages } from '../../transcript/from-chat-messages.js';
import type { Item } from '../../transcript/types.js';
import { messagesOf } from '../demo/load-recordings.js';
import { parseTranscriptJson } from '../parse-transcript-json.js';

/** A transcript file as read: its items, and how to write a result in the same shape. */
export interface TranscriptFile {
  readonly items: readonly Item[];
  /** The messages in the input, for the before/after report. */
  readonly messageCount: number;
  /** The same file shape with other messages: an array stays an array, an object keeps its other fields. */
  withMessages(messages: readonly unknown[]): unknown;
}

/**
 * Reads an OpenAI-format transcript: a JSON array of chat messages, or an object with a
 * `messages` array (like the bundled fixtures, whose `source` and `license` then travel with
 * the result). A protocol-invalid transcript is refused with the `ProtocolError` listing why.
 */
export async function readTranscriptFile({ path }: { path: string }): Promise<TranscriptFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      code === 'ENOENT'
        ? `Transcript file not found: ${path}`
        : `Cannot read ${path}: ${(error as Error).message}`,
      { code: 'transcript_unreadable', cause: error },
    );
  }
  const parsed = parseTranscriptJson({ path, text });
  const messages = messagesOf(parsed);
  if (messages.length === 0) {
    throw new ConfigError(`${path} is an empty transcript: it holds no messages to compact`, {
      code: 'empty_transcript',
    });
  }
  return {
    items: fromChatMessages(messages),
    messageCount: messages.length,
    withMessages: (next) =>
      Array.isArray(parsed) ? next : { ...(parsed as object), messages: next },
  };
}
