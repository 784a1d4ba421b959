import { CommandError } from './command-error.js';

const BYTE_ORDER_MARK = '\uFEFF';

/**
 * The JSON of a transcript file, named in the error when it does not parse. A leading byte
 * order mark (editors on Windows write one) is not part of the JSON and is skipped; left in,
 * it makes JSON.parse fail with an invisible character in the message.
 */
export function parseTranscriptJson({ path, text }: { path: string; text: string }): unknown {
  const json = text.startsWith(BYTE_ORDER_MARK) ? text.slice(BYTE_ORDER_MARK.length) : text;
  try {
    return JSON.parse(json);
  } catch (error) {
    throw new CommandError(`${path} is not valid JSON: ${(error as Error).message}`, {
      code: 'invalid_transcript_file',
      cause: error,
    });
  }
}
