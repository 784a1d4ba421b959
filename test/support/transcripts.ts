import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The real transcripts shipped under test/fixtures/transcripts (MIT, see its README). */
export const transcriptsDirectory = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'fixtures',
  'transcripts',
);

export interface TranscriptFixture {
  readonly file: string;
  readonly source: string;
  // biome-ignore lint/suspicious/noExplicitAny: raw OpenAI chat messages as stored on disk
  readonly messages: readonly any[];
}

export function loadTranscriptFixtures(): readonly TranscriptFixture[] {
  return readdirSync(transcriptsDirectory)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const parsed = JSON.parse(readFileSync(join(transcriptsDirectory, file), 'utf8'));
      return { file, source: parsed.source, messages: parsed.messages };
    });
}
