import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../../errors/config-error.js';
import type { Recording } from '../../testing/replay-plan.js';
import { fromChatMessages } from '../../transcript/from-chat-messages.js';
import { findPackageRoot } from '../package-root.js';

export type { Recording } from '../../testing/replay-plan.js';

/** Where the five real transcripts ship, relative to the package root. */
export const RECORDINGS_DIRECTORY = join('test', 'fixtures', 'transcripts');

/**
 * Reads every `*.json` transcript of a directory (sorted by name, so a replay is the same on
 * every machine). Each file is an array of OpenAI chat messages or an object with a `messages`
 * array; conversion refuses a protocol-invalid file with a `ProtocolError`.
 */
export async function loadRecordings({
  directory = join(findPackageRoot(), RECORDINGS_DIRECTORY),
}: {
  directory?: string;
} = {}): Promise<Recording[]> {
  const names = (await readdir(directory)).filter((name) => name.endsWith('.json')).sort();
  if (names.length === 0) {
    throw new ConfigError(`No transcripts (*.json) found in ${directory}`, {
      code: 'no_recordings',
    });
  }
  return Promise.all(
    names.map(async (name) => {
      const parsed: unknown = JSON.parse(await readFile(join(directory, name), 'utf8'));
      return { name: name.slice(0, -'.json'.length), items: fromChatMessages(messagesOf(parsed)) };
    }),
  );
}

/** The message list of a transcript file: the array itself, or its `messages` field. */
export function messagesOf(parsed: unknown): readonly unknown[] {
  if (Array.isArray(parsed)) return parsed;
  if (typeof parsed === 'object' && parsed !== null && 'messages' in parsed) {
    const { messages } = parsed as { messages: unknown };
    if (Array.isArray(messages)) return messages;
  }
  throw new ConfigError(
    'A transcript must be a JSON array of chat messages or an object with a `messages` array',
    { code: 'invalid_transcript_file' },
  );
}
