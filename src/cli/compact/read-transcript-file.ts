import { readFile } from 'node:fs/promises';
import { LoopkeeperError } from '../../errors/loopkeeper-error.js';
import { ProtocolError } from '../../errors/protocol-error.js';
import { fromChatMessages } from '../../transcript/from-chat-messages.js';
import { repairTranscript } from '../../transcript/repair-transcript.js';
import type { Item, Repair } from '../../transcript/types.js';
import { CommandError } from '../command-error.js';
import { messagesOf } from '../demo/load-recordings.js';
import { parseTranscriptJson } from '../parse-transcript-json.js';

/** A transcript file as read: its items, and how to write a result in the same shape. */
export interface TranscriptFile {
  readonly items: readonly Item[];
  /** The messages in the input, for the before/after report. */
  readonly messageCount: number;
  /** What `repair` changed to make the transcript protocol-valid; empty without it. */
  readonly repairs: readonly Repair[];
  /** The same file shape with other messages: an array stays an array, an object keeps its other fields. */
  withMessages(messages: readonly unknown[]): unknown;
}

/**
 * Reads an OpenAI-format transcript: a JSON array of chat messages, or an object with a
 * `messages` array (like the bundled fixtures, whose `source` and `license` then travel with
 * the result). `-` reads standard input. Every error names the file. A protocol-invalid
 * transcript is refused with the problems, unless `repair` is set: then `repairTranscript`
 * makes it valid (an unanswered tool call gets an error result, an orphan result is dropped)
 * and each repair is listed in `repairs`.
 */
export async function readTranscriptFile({
  path,
  repair = false,
  stdin,
}: {
  path: string;
  repair?: boolean;
  /** Read when `path` is `-`. */
  stdin?: NodeJS.ReadableStream | undefined;
}): Promise<TranscriptFile> {
  const name = path === '-' ? 'standard input' : path;
  const text = await readText({ path, stdin });
  const parsed = parseTranscriptJson({ path: name, text });
  let messages: readonly unknown[];
  try {
    messages = messagesOf(parsed);
  } catch (error) {
    throw inFile(name, error);
  }
  if (messages.length === 0) {
    throw new CommandError(`${name} is an empty transcript: it holds no messages to compact`, {
      code: 'empty_transcript',
    });
  }
  let items: Item[];
  let repairs: readonly Repair[] = [];
  try {
    items = fromChatMessages(messages, { validate: !repair });
  } catch (error) {
    if (ProtocolError.isInstance(error)) {
      throw new CommandError(
        `${name} is not a valid transcript: ${error.message}; run with --repair to make it valid (each repair is reported)`,
        { code: 'invalid_transcript_file', cause: error },
      );
    }
    throw inFile(name, error);
  }
  if (repair) ({ items, repairs } = repairTranscript(items));
  return {
    items,
    messageCount: messages.length,
    repairs,
    withMessages: (next) =>
      Array.isArray(parsed) ? next : { ...(parsed as object), messages: next },
  };
}

async function readText({
  path,
  stdin,
}: {
  path: string;
  stdin: NodeJS.ReadableStream | undefined;
}): Promise<string> {
  if (path === '-') {
    if (stdin === undefined) {
      throw new CommandError('No standard input to read the transcript from', {
        code: 'transcript_unreadable',
      });
    }
    const chunks: Buffer[] = [];
    for await (const chunk of stdin) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
  }
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CommandError(
      code === 'ENOENT'
        ? `Transcript file not found: ${path}`
        : `Cannot read ${path}: ${(error as Error).message}`,
      { code: 'transcript_unreadable', cause: error },
    );
  }
}

/** A loopkeeper error about the content, with the file's name in front of its message. */
function inFile(name: string, error: unknown): unknown {
  if (!LoopkeeperError.isInstance(error) && !CommandError.isInstance(error)) return error;
  return new CommandError(`${name}: ${error.message}`, {
    code: 'invalid_transcript_file',
    cause: error,
  });
}
