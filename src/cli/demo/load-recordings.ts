import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../../errors/config-error.js';
import { LoopkeeperError } from '../../errors/loopkeeper-error.js';
import type { Recording } from '../../testing/replay-plan.js';
import { fromChatMessages } from '../../transcript/from-chat-messages.js';
import type { Item } from '../../transcript/types.js';
import { findPackageRoot } from '../package-root.js';
import { parseTranscriptJson } from '../parse-transcript-json.js';

export type { Recording } from '../../testing/replay-plan.js';

/** Where the five real transcripts ship, relative to the package root. */
export const RECORDINGS_DIRECTORY = join('test', 'fixtures', 'transcripts');

/**
 * Reads every `*.json` transcript of a directory (sorted by name, so a replay is the same on
 * every machine). Each file is an array of OpenAI chat messages or an object with a `messages`
 * array; a file that does not parse or breaks the protocol is refused with its path.
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
      const path = join(directory, name);
      const parsed = parseTranscriptJson({ path, text: await readFile(path, 'utf8') });
      return { name: name.slice(0, -'.json'.length), items: toItems({ path, parsed }) };
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

/** A recording's items; a file that is not a valid transcript is refused with its path. */
function toItems({ path, parsed }: { path: string; parsed: unknown }): readonly Item[] {
  try {
    return fromChatMessages(messagesOf(parsed));
  } catch (error) {
    if (!LoopkeeperError.isInstance(error)) throw error;
    throw new ConfigError(`${path}: ${error.message}`, { code: error.code, cause: error });
  }
}
