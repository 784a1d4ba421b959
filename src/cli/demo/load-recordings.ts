import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LoopkeeperError } from '../../errors/loopkeeper-error.js';
import type { Recording } from '../../testing/replay-plan.js';
import { fromChatMessages } from '../../transcript/from-chat-messages.js';
import type { Item } from '../../transcript/types.js';
import { CommandError } from '../command-error.js';
import { findPackageRoot } from '../package-root.js';
import { parseTranscriptJson } from '../parse-transcript-json.js';
import { syntheticRecordings } from './synthetic-recordings.js';

export type { Recording } from '../../testing/replay-plan.js';

/**
 * Where the five real transcripts live in a source checkout, relative to the package root.
 * Their licence notice asks that they not be copied into the published package, so an
 * installed package has no such directory and the demo replays `syntheticRecordings()`.
 */
export const RECORDINGS_DIRECTORY = join('test', 'fixtures', 'transcripts');

/**
 * What the demo replays: the transcripts of `directory` when given; else the real recordings
 * of a source checkout; else, in an installed package, the synthetic sessions.
 */
export async function demoRecordings(
  directory: string | undefined,
): Promise<{ recordings: Recording[]; synthetic: boolean }> {
  if (directory !== undefined)
    return { recordings: await loadRecordings({ directory }), synthetic: false };
  const bundled = join(findPackageRoot(), RECORDINGS_DIRECTORY);
  if (existsSync(bundled))
    return { recordings: await loadRecordings({ directory: bundled }), synthetic: false };
  return { recordings: syntheticRecordings(), synthetic: true };
}

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
    throw new CommandError(`No transcripts (*.json) found in ${directory}`, {
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
  throw new CommandError(
    'A transcript must be a JSON array of chat messages or an object with a `messages` array',
    { code: 'invalid_transcript_file' },
  );
}

/** A recording's items; a file that is not a valid transcript is refused with its path. */
function toItems({ path, parsed }: { path: string; parsed: unknown }): readonly Item[] {
  try {
    return fromChatMessages(messagesOf(parsed));
  } catch (error) {
    if (!LoopkeeperError.isInstance(error) && !CommandError.isInstance(error)) throw error;
    // The command's own failure keeps its code; any other (a protocol break) says which file.
    const code = CommandError.isInstance(error) ? error.code : 'invalid_transcript_file';
    throw new CommandError(`${path}: ${error.message}`, { code, cause: error });
  }
}
